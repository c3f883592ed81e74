# Which local cluster the scripts here act on, sourced by each of them (cluster.sh, nodes.sh,
# pki.sh, images.sh) after ../lib.sh. FLUIDOPS_CLUSTER_INSTANCE=N (1-9) is a second cluster beside the
# default one (0), as kind's --name is: its own state directory ($cache/run-N), loopback ports
# (+100 N) and node host containers (fluidopsN-gpu-node-K, whose nodes keep their names). make test
# runs the real nodes' suite so, beside the simulated one.
# shellcheck shell=bash disable=SC2034  # the variables are the sourcing script's
cache=${cache_root:?}/localcluster
instance=${FLUIDOPS_CLUSTER_INSTANCE:-0}
if ! [[ $instance =~ ^[0-9]$ ]]; then
  log "ERROR: FLUIDOPS_CLUSTER_INSTANCE=$instance: use a digit, 0 (the default cluster) to 9"
  exit 2
fi
if ((instance)); then
  instance_suffix=-$instance host_prefix=fluidops$instance-
else
  instance_suffix='' host_prefix=''
fi
run=${FLUIDOPS_CLUSTER_DIR:-$cache/run$instance_suffix}
last_logs=$cache/last-logs$instance_suffix
# Loopback only, on ports away from the usual ones so a real cluster's tools are not confused. The
# controllers' metrics and health ports: Fluid's default :8080 each, one port each here.
port_offset=$((instance * 100))
etcd_port=$((23790 + port_offset)) etcd_peer_port=$((23800 + port_offset))
apiserver_port=$((16443 + port_offset)) kwok_port=$((10347 + port_offset))
controller_manager_port=$((10357 + port_offset)) scheduler_port=$((10359 + port_offset))
fluid_dataset_metrics=127.0.0.1:$((18081 + port_offset)) fluid_alluxio_metrics=127.0.0.1:$((18082 + port_offset))
registry_port=${FLUIDOPS_REGISTRY_PORT:-$((15000 + port_offset))}

host_of() { echo "$host_prefix$1"; }  # the podman container of the node host NAME
