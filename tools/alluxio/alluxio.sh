#!/usr/bin/env bash
# The data-path benchmark's real Alluxio (tools/bench/datapath.py; jars from Maven Central,
# tools/alluxio/fetch.sh), run in the benchmark's own host container the way Fluid's runtime chart
# runs it on a GPU node: master, job master, worker, job worker and JNI-FUSE. The benchmark
# prepares the host first with the bundle's gpu_node role (ramfs on /ram/alluxio, FUSE packages);
# the worker's MEM tier lives on that ramfs. The processes' settings are what Fluid's chart hands
# its pods, rendered by Helm from the values Fluid's controller wrote for the runtime
# (tools/alluxio/localconf.py, tools/bench/fluid_values.py). The local cluster's Alluxio runs in
# pods, from Fluid's runtime chart (tools/localcluster/images.sh builds its image).
#   alluxio.sh up | down | stop | status | remount-fuse | mounts | env
# FLUIDOPS_ALLUXIO_STATE (its configuration, logs and root under-store) and FLUIDOPS_ALLUXIO_NODES
# (the host containers, the master's first) say where; FLUIDOPS_ALLUXIO_VALUES (up), the values.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log_name=alluxio
# shellcheck source=../lib.sh  # log, die, wait_for, show_tail, ip_of, repo, tools_pythonpath
. "$here/../lib.sh"
# The local cluster's parts: Helm and Fluid's charts (tools/localcluster/build.sh).
cache=$cache_root/localcluster
# Progress while it waits: the JVMs take minutes on a busy machine.
wait_for_every=10
state=${FLUIDOPS_ALLUXIO_STATE:?set FLUIDOPS_ALLUXIO_STATE: the directory of the configuration, logs and under-store}
read -r -a alluxio_nodes <<< "${FLUIDOPS_ALLUXIO_NODES:?set FLUIDOPS_ALLUXIO_NODES: the host containers, the master first}"
master_node=${alluxio_nodes[0]}
# Inside the hosts (container_mounts puts them there).
home=/opt/alluxio java=/usr/lib/jvm/java-17-openjdk-amd64/bin/java
# The pods' layout in Fluid's values (localconf.py writes it at up): MASTER_WEB_PORT, FUSE_MOUNT,
# TIER_PATHS, JOURNAL_FOLDER, FORMAT_JOURNAL, FORMAT_WORKER.
MASTER_WEB_PORT='' FUSE_MOUNT=''
# shellcheck source=/dev/null  # written at run time by localconf.py
[ ! -f "$state/layout.env" ] || . "$state/layout.env"

venv_python() { PYTHONPATH=$tools_pythonpath "$(cat "$cache_root/.venv-path")/bin/python" "$@"; }

container_mounts() {  # the podman run flags that give a host the JDK, the jars and this state
  local jdk; jdk=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  mkdir -p "$state/ufs"
  printf '%s\n' -v "$jdk:/usr/lib/jvm/java-17-openjdk-amd64:ro" -v /etc/java-17-openjdk:/etc/java-17-openjdk:ro \
    -v "$("$here/fetch.sh"):$home/lib:ro" -v "$here/bin:$home/bin:ro" \
    -v "$state:$home/state" -v "$state/ufs:/underFSStorage"
}

# The environment a pod of the chart gets from its fieldRefs, then the process in the background.
# Only the masters' pods are given ALLUXIO_MASTER_HOSTNAME (their own address): bin/alluxio makes it
# alluxio.master.hostname, as libexec/alluxio-config.sh does, so on a worker it would name the worker.
pod_env() {  # pod_env NODE NAME: podman exec's -e flags
  local ip; ip=$(ip_of "$1")
  case $2 in master | job_master) printf '%s\n' -e "ALLUXIO_MASTER_HOSTNAME=$ip" ;; esac
  printf '%s\n' -e "ALLUXIO_WORKER_HOSTNAME=$ip" -e "ALLUXIO_WORKER_CONTAINER_HOSTNAME=$ip" -e "ALLUXIO_CLIENT_HOSTNAME=$ip" \
    -e "ALLUXIO_LIB=$home/lib" -e "ALLUXIO_CONF_DIR=$home/state/conf" -e "ALLUXIO_LOGS_DIR=$home/state/logs/$1" \
    -e "JAVA=$java" -e "ALLUXIO_HOME=$home"
}
start_process() {  # start_process NODE NAME ARGS...
  local node=$1 name=$2 env; shift 2
  mapfile -t env < <(pod_env "$node" "$name")
  mkdir -p "$state/logs/$node"
  podman exec -d "${env[@]}" \
    "$node" sh -c "echo \$\$ > $home/state/logs/$node/$name.pid; exec $home/bin/alluxio $* > $home/state/logs/$node/$name.out 2>&1"  >/dev/null
}
# What the chart's init container or the image's entrypoint runs before a server: to its end.
run_first() {  # run_first NODE NAME ARGS...
  local node=$1 name=$2 env; shift 2
  mapfile -t env < <(pod_env "$node" "$name")
  mkdir -p "$state/logs/$node"
  podman exec "${env[@]}" "$node" "$home/bin/alluxio" "$@" > "$state/logs/$node/$name.out" 2>&1 \
    || { tail -n 20 "$state/logs/$node/$name.out" >&2; die "alluxio $* failed on $node"; }
}

master_info() { curl -sf "http://$(ip_of "$master_node"):$MASTER_WEB_PORT/api/v1/master/info"; }
live_workers() {  # true once the master counts every worker
  [ "$(master_info | python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("workers") or []))')" -eq "${#alluxio_nodes[@]}" ]
}
fuse_mounted() { [ -n "$FUSE_MOUNT" ] && podman exec "$1" findmnt -n -t fuse,fuse.alluxio-fuse "$FUSE_MOUNT"; }
# Mounted, or the FUSE JVM gone (it exits when libfuse refuses the mount): no use waiting longer.
fuse_mounted_or_exited() { fuse_mounted "$1" || ! podman exec "$1" kill -0 "$(cat "$state/logs/$1/fuse.pid")"; }
stop_process() {  # stop_process NODE NAME: the process started by start_process, if it runs
  # SIGTERM runs the JVM's shutdown hooks; a FUSE JVM whose mount is already gone can hang in
  # its hook, so after 15 s it gets SIGKILL.
  local pidfile="$state/logs/$1/$2.pid" pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  podman exec "$1" sh -c "kill $pid 2>/dev/null; for i in \$(seq 75); do kill -0 $pid 2>/dev/null || exit 0; sleep 0.2; done; kill -9 $pid"
  rm -f "$pidfile"
}

up() {
  local start=$SECONDS node master_ip
  podman container exists "$master_node" || die "the host $master_node is not running: start the cluster first"
  if [ -s "$state/up" ] && fuse_mounted "${alluxio_nodes[-1]}" >/dev/null 2>&1; then return 0; fi
  local values=${FLUIDOPS_ALLUXIO_VALUES:?set FLUIDOPS_ALLUXIO_VALUES: the values Fluid wrote for the runtime}
  mkdir -p "$state/logs"
  master_ip=$(ip_of "$master_node")
  venv_python -m alluxio.localconf --values "$values" --out "$state" --master-host "$master_ip" \
    --helm "$cache/helm" --chart "$cache/fluid/charts/alluxio" >/dev/null
  # shellcheck source=/dev/null  # just written by localconf.py
  . "$state/layout.env"
  # The pods' hostPath and emptyDir volumes: the tiers (DirectoryOrCreate) and the journal.
  for node in "${alluxio_nodes[@]}"; do
    # shellcheck disable=SC2086  # TIER_PATHS is a list
    podman exec "$node" mkdir -p $TIER_PATHS
  done
  # A new master pod's journal volume (Fluid's values: an emptyDir) is empty.
  [ -z "$JOURNAL_FOLDER" ] || podman exec "$master_node" sh -c 'rm -rf "$1" && mkdir -p "$1"' - "$JOURNAL_FOLDER"
  [ "$FORMAT_JOURNAL" != true ] || run_first "$master_node" format_journal formatJournal
  log "starting the Alluxio master and job master on $master_node ($master_ip)"
  start_process "$master_node" master process master
  start_process "$master_node" job_master process job_master
  wait_for "the Alluxio master" 400 master_info \
    || { show_tail "$state/logs/$master_node/master.out" 30; die "the Alluxio master did not start (logs in $state/logs/$master_node)"; }
  log "starting the workers and job workers on ${alluxio_nodes[*]}"
  for node in "${alluxio_nodes[@]}"; do
    [ "$FORMAT_WORKER" != true ] || run_first "$node" format_worker formatWorker
    start_process "$node" worker process worker
    start_process "$node" job_worker process job_worker
  done
  wait_for "${#alluxio_nodes[@]} live Alluxio workers" 400 live_workers \
    || { show_tail "$state/logs/${alluxio_nodes[-1]}/WORKER_LOGGER.log" 30; die "the Alluxio workers did not register (logs in $state/logs)"; }
  mount_fuse
  echo "$master_ip" > "$state/up"
  log "Alluxio up in $((SECONDS - start)) s: master $master_ip (web port $MASTER_WEB_PORT), ${#alluxio_nodes[@]} workers, FUSE at $FUSE_MOUNT"
}

mount_fuse() {
  log "mounting JNI-FUSE at $FUSE_MOUNT on ${alluxio_nodes[*]}"
  local node fuse_args; mapfile -t fuse_args < "$state/fuse.args"
  for node in "${alluxio_nodes[@]}"; do
    podman exec "$node" mkdir -p "$FUSE_MOUNT"
    start_process "$node" fuse fuse "${fuse_args[@]}"
  done
  for node in "${alluxio_nodes[@]}"; do
    wait_for "the FUSE mount on $node" 400 fuse_mounted_or_exited "$node" || show_tail "$state/logs/$node/FUSE_LOGGER.log" 30
    fuse_mounted "$node" \
      || die "JNI-FUSE did not mount on $node: $(grep -E 'ERROR|Exception' "$state/logs/$node/FUSE_LOGGER.log" | tail -n 3) (logs in $state/logs/$node)"
  done
}

unmount_fuse() {  # unmount first, so no mount outlives its process
  local node
  for node in "${alluxio_nodes[@]}"; do
    podman container exists "$node" || continue
    if fuse_mounted "$node" >/dev/null 2>&1; then
      podman exec "$node" umount -l "$FUSE_MOUNT" || log "could not unmount $FUSE_MOUNT on $node"
    fi
  done
}

remount_fuse() {  # FUSE restarted with $state/fuse.args and $state/conf as they are now
  local node
  for node in "${alluxio_nodes[@]}"; do stop_process "$node" fuse; done
  unmount_fuse  # what a stopped FUSE left behind
  mount_fuse
}

stop() {  # every process, for a restart with other settings in the same hosts
  local node name
  for node in "${alluxio_nodes[@]}"; do stop_process "$node" fuse; done
  unmount_fuse
  for node in "${alluxio_nodes[@]}"; do
    for name in job_worker worker job_master master; do stop_process "$node" "$name"; done
  done
  rm -f "$state/up"
}

down() {
  unmount_fuse  # the hosts' removal then ends the JVMs
  rm -f "$state/up"
}

status() {
  local node name
  for node in "${alluxio_nodes[@]}"; do
    for name in master job_master worker job_worker fuse; do
      [ -f "$state/logs/$node/$name.pid" ] || continue
      if podman exec "$node" kill -0 "$(cat "$state/logs/$node/$name.pid")" 2>/dev/null; then
        echo "alluxio $name on $node: running"
      else
        echo "alluxio $name on $node: stopped"
      fi
    done
  done
}

case ${1:-} in
  up) up ;;
  down) down ;;
  status) status ;;
  remount-fuse) remount_fuse ;;
  stop) stop ;;
  mounts) container_mounts ;;
  env)  # what a client on this machine needs (the benchmark's alluxio CLI)
    printf 'ALLUXIO_LIB=%s\nALLUXIO_CONF_DIR=%s\nALLUXIO_LOGS_DIR=%s\n' \
      "$("$here/fetch.sh")" "$state/conf" "$state/logs/client" ;;
  *) echo "usage: $0 up|down|stop|status|remount-fuse|mounts|env" >&2; exit 2 ;;
esac
