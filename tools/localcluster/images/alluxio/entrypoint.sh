#!/usr/bin/env bash
# The Alluxio image's entrypoint, following Alluxio 2.9.3's integration/docker/entrypoint.sh:
# the environment's ALLUXIO_*_JAVA_OPTS (the chart's ConfigMap, through envFrom) are written to
# conf/alluxio-env.sh once, in double quotes, so the ${ALLUXIO_MASTER_HOSTNAME}-style references
# in them expand when bin/alluxio sources it; then one process runs in the foreground.
#   /entrypoint.sh master-only|worker-only [--no-format] | job-master | job-worker
#   /entrypoint.sh master|worker [--no-format]      the process and its job process together
#   /entrypoint.sh fuse [--fuse-opts=OPTIONS] MOUNT_POINT ALLUXIO_PATH
set -euo pipefail
ALLUXIO_HOME=${ALLUXIO_HOME:-/opt/alluxio}
conf=${ALLUXIO_CONF_DIR:-$ALLUXIO_HOME/conf}

usage() {
  echo "usage: $0 master|master-only|job-master|worker|worker-only|job-worker [--no-format] | fuse [--fuse-opts=OPTIONS] MOUNT_POINT ALLUXIO_PATH" >&2
  exit 1
}

write_conf() {  # writeConf: the variables Alluxio's entrypoint copies, once
  [ -f "$conf/alluxio-env.sh" ] && return 0
  local name
  for name in ALLUXIO_CLASSPATH ALLUXIO_HOSTNAME ALLUXIO_JARS ALLUXIO_JAVA_OPTS ALLUXIO_MASTER_JAVA_OPTS \
    ALLUXIO_PROXY_JAVA_OPTS ALLUXIO_RAM_FOLDER ALLUXIO_USER_JAVA_OPTS ALLUXIO_WORKER_JAVA_OPTS \
    ALLUXIO_JOB_MASTER_JAVA_OPTS ALLUXIO_JOB_WORKER_JAVA_OPTS ALLUXIO_FUSE_JAVA_OPTS; do
    [ -n "${!name:-}" ] || continue
    printf 'export %s="%s"\n' "$name" "${!name}" >> "$conf/alluxio-env.sh"
  done
}

format_if_asked() {  # format_if_asked journal|worker FLAG: Alluxio formats unless --no-format
  case ${2:-} in
    --no-format) ;;
    "") if [ "$1" = journal ]; then alluxio formatJournal; else alluxio formatWorker; fi ;;
    *) usage ;;
  esac
}

# Two processes in one container, as Alluxio's entrypoint runs them: signals reach both.
run_both() {  # run_both PROCESS PROCESS
  alluxio process "$1" & first=$!
  alluxio process "$2" & second=$!
  trap 'kill -TERM $first $second 2>/dev/null' TERM INT HUP
  wait -n
  kill -TERM "$first" "$second" 2>/dev/null || true
  wait
}

[ $# -ge 1 ] || usage
mode=$1; shift
cd "$ALLUXIO_HOME"
write_conf
case $mode in
  master-only) format_if_asked journal "${1:-}"; exec alluxio process master ;;
  job-master) exec alluxio process job_master ;;
  worker-only) format_if_asked worker "${1:-}"; exec alluxio process worker ;;
  job-worker) exec alluxio process job_worker ;;
  master) format_if_asked journal "${1:-}"; run_both master job_master ;;
  worker) format_if_asked worker "${1:-}"; run_both worker job_worker ;;
  fuse)
    # Alluxio 2.8+ takes the mount point and path as arguments; the old variables are refused.
    if [ -n "${FUSE_ALLUXIO_PATH:-}" ] || [ -n "${MOUNT_POINT:-}" ]; then
      echo "FUSE_ALLUXIO_PATH and MOUNT_POINT are not read: give MOUNT_POINT ALLUXIO_PATH as arguments" >&2
      exit 1
    fi
    fuse=$ALLUXIO_HOME/integration/fuse/bin/alluxio-fuse
    if [[ ${1:-} == --fuse-opts=* ]]; then
      options=${1#--fuse-opts=}; shift
      exec "$fuse" mount -o "$options" "$@"
    fi
    exec "$fuse" mount "$@" ;;
  *) usage ;;
esac
