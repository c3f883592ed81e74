#!/usr/bin/env bash
# The local cluster's real Alluxio (jars from Maven Central, tools/alluxio/fetch.sh), run in the
# node host containers the way the Alluxio chart runs it on GPU nodes:
#   gpu-node-1   master, job master, worker, job worker, JNI-FUSE
#   gpu-node-2   worker, job worker, JNI-FUSE
# The nodes are first prepared by the bundle's own gpu_node role (ramfs on /ram/alluxio, FUSE
# packages); the workers' MEM tier lives on that ramfs. The processes' settings are the Alluxio
# chart's, rendered by Helm from the tuning profile (tools/alluxio/localconf.py). Two directories
# of this machine are mounted in every host: the root under-store at /underFSStorage (Fluid's
# root UFS path), and /standins, the local stand-ins of the stores Alluxio cannot reach here
# (simulator.py standin_tree; Alluxio refuses a mount nested in the root UFS).
#   alluxio.sh up | down | stop | status | renew-clients | remount-fuse | mounts | env
# Called by cluster.sh with its variables exported (cache, run, repo, CONTAINERS_CONF).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=instance.sh  # cache, run, host_of
. "$here/instance.sh"
# The data-path benchmark (tools/bench/datapath.py) runs its own Alluxio in its own host with
# these three set; the local cluster takes the defaults.
state=${FLUIDOPS_ALLUXIO_STATE:-$run/alluxio}
read -r -a alluxio_nodes <<< "${FLUIDOPS_ALLUXIO_NODES:-$(host_of gpu-node-1) $(host_of gpu-node-2)}"
prepare=${FLUIDOPS_ALLUXIO_PREPARE:-gpu_node}  # gpu_node: the role prepares the hosts; none: they are ready
master_node=${alluxio_nodes[0]}
# Inside the hosts (container_mounts puts them there).
home=/opt/alluxio java=/usr/lib/jvm/java-17-openjdk-amd64/bin/java fuse_mount=/mnt/alluxio-fuse

log() { printf '[localcluster alluxio] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
venv_python() { "$(cat "$cache/../.venv-path")/bin/python" "$@"; }

container_mounts() {  # the podman run flags that give a host the JDK, the jars and this state
  local jdk; jdk=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  mkdir -p "$state/ufs" "$state/standins"
  printf '%s\n' -v "$jdk:/usr/lib/jvm/java-17-openjdk-amd64:ro" -v /etc/java-17-openjdk:/etc/java-17-openjdk:ro \
    -v "$("$repo/tools/alluxio/fetch.sh"):$home/lib:ro" -v "$repo/tools/alluxio/bin:$home/bin:ro" \
    -v "$state:$home/state" -v "$state/ufs:/underFSStorage" \
    -v "$state/standins:/standins"
}

ip_of() { podman container inspect -f '{{.NetworkSettings.IPAddress}}' "$1"; }

# The environment a pod of the chart gets from its fieldRefs, then the process in the background.
# Only the masters' pods are given ALLUXIO_MASTER_HOSTNAME (their own address): bin/alluxio makes it
# alluxio.master.hostname, as libexec/alluxio-config.sh does, so on a worker it would name the worker.
start_process() {  # start_process NODE NAME ARGS...
  local node=$1 name=$2 ip master=(); shift 2
  ip=$(ip_of "$node")
  case $name in master | job_master) master=(-e ALLUXIO_MASTER_HOSTNAME="$ip") ;; esac
  mkdir -p "$state/logs/$node"
  podman exec -d "${master[@]}" -e ALLUXIO_WORKER_HOSTNAME="$ip" -e ALLUXIO_WORKER_CONTAINER_HOSTNAME="$ip" \
    -e ALLUXIO_CLIENT_HOSTNAME="$ip" -e ALLUXIO_LIB="$home/lib" -e ALLUXIO_CONF_DIR="$home/state/conf" \
    -e ALLUXIO_LOGS_DIR="$home/state/logs/$node" -e JAVA="$java" -e ALLUXIO_HOME="$home" \
    "$node" sh -c "echo \$\$ > $home/state/logs/$node/$name.pid; exec $home/bin/alluxio $* > $home/state/logs/$node/$name.out 2>&1"  >/dev/null
}

# Waits for a condition, saying every 10 s what it waits for; on timeout shows the log.
wait_for() {  # wait_for WHAT SECONDS LOG COMMAND...
  local what=$1 limit=$2 logfile=$3 waited=0; shift 3
  until "$@" >/dev/null 2>&1; do
    if ((waited >= limit)); then
      log "$what: not ready after $limit s; last lines of $logfile:"
      tail -n 30 "$logfile" >&2 || true
      return 1
    fi
    ((waited > 0 && waited % 10 == 0)) && log "  waiting for $what ($waited s)"
    sleep 1; waited=$((waited + 1))
  done
}

master_info() { curl -sf "http://$(ip_of "$master_node"):19999/api/v1/master/info"; }
live_workers() {  # true once the master counts every worker
  [ "$(master_info | python3 -c 'import json,sys; print(len(json.load(sys.stdin).get("workers") or []))')" -eq "${#alluxio_nodes[@]}" ]
}
fuse_mounted() { podman exec "$1" findmnt -n -t fuse,fuse.alluxio-fuse "$fuse_mount"; }
live_job_workers() {  # true once the job master counts every job worker
  [ "$(podman exec "$master_node" env ALLUXIO_LIB="$home/lib" ALLUXIO_CONF_DIR="$home/state/conf" \
        ALLUXIO_LOGS_DIR="$home/state/logs/$master_node" JAVA="$java" ALLUXIO_HOME="$home" \
        "$home/bin/alluxio" fsadmin report jobservice | grep -c '^Worker: ')" -eq "${#alluxio_nodes[@]}" ]
}
stop_process() {  # stop_process NODE NAME: the process started by start_process, if it runs
  # SIGTERM runs the JVM's shutdown hooks; a FUSE JVM whose mount is already gone can hang in
  # its hook, so after 15 s it gets SIGKILL.
  local pidfile="$state/logs/$1/$2.pid" pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  podman exec "$1" sh -c "kill $pid 2>/dev/null; for i in \$(seq 75); do kill -0 $pid 2>/dev/null || exit 0; sleep 0.2; done; kill -9 $pid"
  rm -f "$pidfile"
}

prepare_nodes() {
  # The bundle's own node preparation, as site.yml runs it: ramfs and tmpfs cache mounts, FUSE
  # packages (libfuse2 for JNI-FUSE), limits.
  local limit; limit=$(IFS=,; echo "${alluxio_nodes[*]}")
  log "preparing ${alluxio_nodes[*]} with the gpu_node role (playbooks/nodes.yml)"
  (cd "$repo" && ANSIBLE_CONFIG="$repo/ansible.cfg" PATH="$(cat "$cache/../.venv-path")/bin:$PATH" \
    ansible-playbook playbooks/nodes.yml -i inventory/local --limit "$limit" > "$state/prepare-nodes.log" 2>&1) \
    || { tail -n 30 "$state/prepare-nodes.log" >&2; die "the gpu_node role failed on ${alluxio_nodes[*]}"; }
}

up() {
  local start=$SECONDS node master_ip
  podman container exists "$master_node" || die "the host $master_node is not running: start the cluster first"
  if [ -s "$state/up" ] && fuse_mounted "${alluxio_nodes[-1]}" >/dev/null 2>&1; then return 0; fi
  mkdir -p "$state/logs"
  master_ip=$(ip_of "$master_node")
  venv_python "$repo/tools/alluxio/localconf.py" --out "$state" --master-host "$master_ip" \
    --helm "$cache/helm" --chart "$cache/alluxio/alluxio" >/dev/null
  log "starting the Alluxio master and job master on $master_node ($master_ip)"
  start_process "$master_node" master process master
  start_process "$master_node" job_master process job_master
  # The masters need neither the tier's ramfs nor libfuse: the nodes are prepared while they start.
  [ "$prepare" = none ] || prepare_nodes
  wait_for "the Alluxio master" 400 "$state/logs/$master_node/master.out" master_info \
    || die "the Alluxio master did not start (logs in $state/logs/$master_node)"
  log "starting the workers and job workers on ${alluxio_nodes[*]}"
  for node in "${alluxio_nodes[@]}"; do
    start_process "$node" worker process worker
    start_process "$node" job_worker process job_worker
  done
  wait_for "${#alluxio_nodes[@]} live Alluxio workers" 400 "$state/logs/${alluxio_nodes[-1]}/WORKER_LOGGER.log" live_workers \
    || die "the Alluxio workers did not register (logs in $state/logs)"
  mount_fuse
  echo "$master_ip" > "$state/up"
  log "Alluxio up in $((SECONDS - start)) s: master $master_ip:19998, ${#alluxio_nodes[@]} workers, FUSE at $fuse_mount"
}

mount_fuse() {
  log "mounting JNI-FUSE at $fuse_mount on ${alluxio_nodes[*]}"
  local node fuse_args; mapfile -t fuse_args < "$state/fuse.args"
  for node in "${alluxio_nodes[@]}"; do
    podman exec "$node" mkdir -p "$fuse_mount"
    start_process "$node" fuse fuse "${fuse_args[@]}"
  done
  for node in "${alluxio_nodes[@]}"; do
    wait_for "the FUSE mount on $node" 400 "$state/logs/$node/FUSE_LOGGER.log" fuse_mounted "$node" \
      || die "JNI-FUSE did not mount on $node (logs in $state/logs/$node)"
  done
}

unmount_fuse() {  # unmount first, so no mount outlives its process
  local node
  for node in "${alluxio_nodes[@]}"; do
    podman container exists "$node" || continue
    if fuse_mounted "$node" >/dev/null 2>&1; then
      podman exec "$node" umount -l "$fuse_mount" || log "could not unmount $fuse_mount on $node"
    fi
  done
}

# A Fluid runtime's pods go with the runtime, and a new runtime gets new ones. Here one Alluxio
# outlives the runtimes, so when one goes (simulator.py) the processes that are Alluxio's clients
# are restarted: the job master (it plans a DataLoad from file metadata), the job workers and
# FUSE. Their metadata caches (the profile keeps entries for 2 days) would otherwise still hold
# the block ids of files that left with the old mount, and every task of a new DataLoad on them
# fails. The master keeps its namespace; the simulator has unmounted the runtime's paths.
renew_clients() {
  local start=$SECONDS node
  for node in "${alluxio_nodes[@]}"; do stop_process "$node" job_worker; done
  stop_process "$master_node" job_master
  start_process "$master_node" job_master process job_master
  for node in "${alluxio_nodes[@]}"; do start_process "$node" job_worker process job_worker; done
  remount_fuse
  wait_for "${#alluxio_nodes[@]} live job workers" 400 "$state/logs/${alluxio_nodes[-1]}/JOB_WORKER_LOGGER.log" live_job_workers \
    || die "the Alluxio job workers did not register (logs in $state/logs)"
  log "job master, job workers and FUSE renewed in $((SECONDS - start)) s"
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
  renew-clients) renew_clients ;;
  remount-fuse) remount_fuse ;;
  stop) stop ;;
  mounts) container_mounts ;;
  env)  # what a client on this machine needs: the kwok Exec and the simulator use it
    printf 'ALLUXIO_LIB=%s\nALLUXIO_CONF_DIR=%s\nALLUXIO_LOGS_DIR=%s\nFLUIDOPS_ALLUXIO_STANDINS=%s\n' \
      "$("$repo/tools/alluxio/fetch.sh")" "$state/conf" "$state/logs/client" "$state/standins" ;;
  *) echo "usage: $0 up|down|stop|status|renew-clients|remount-fuse|mounts|env" >&2; exit 2 ;;
esac
