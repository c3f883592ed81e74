#!/usr/bin/env bash
# Shows what the demo did on the local cluster: the nodes, the Helm releases, and each node
# host's cache mounts. Reads only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${FLUIDOPS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fluidops}/localcluster
kubeconfig=$("$here/cluster.sh" kubeconfig)
kubectl() { "$cache/kube" kubectl --kubeconfig "$kubeconfig" "$@"; }

echo "== Kubernetes nodes (simulated by kwok)"
kubectl get nodes -L aliyun.accelerator/nvidia_name \
  -o custom-columns='NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status,GPUS:.status.allocatable.nvidia\.com/gpu,CPU:.status.allocatable.cpu,MEMORY:.status.allocatable.memory,ACCELERATOR:.metadata.labels.aliyun\.accelerator/nvidia_name'
echo
echo "== Helm releases"
"$cache/helm" --kubeconfig "$kubeconfig" list --all-namespaces
echo
echo "== Cache mounts on the node hosts (podman containers)"
for host in gpu-node-1 gpu-node-2 gpu-node-3 gpu-node-4; do
  # fstab carries the configured size (ramfs reports none); findmnt says whether it is mounted.
  podman exec "$host" sh -c 'grep -E "[[:space:]](ramfs|tmpfs)[[:space:]]" /etc/fstab | while read -r _ target type opts _; do
      echo "$target $type $opts $(findmnt -n "$target" >/dev/null && echo mounted || echo NOT-mounted)"; done' 2>/dev/null \
    | sed "s/^/$host  /" || echo "$host  (not running)"
done
