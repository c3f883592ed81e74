#!/usr/bin/env bash
# A node host's init when it is a real Kubernetes node (cluster.sh runs it under tini as the
# container's command), in the manner of kind's node entrypoint: make mounts shared, give the
# kubelet a cgroup of its own, keep the kubelet off the VM's sysctls, then run containerd, the
# kubelet and kube-proxy, each restarted when it exits, as systemd restarts them on a real node.
# Its configuration is cluster.sh's, mounted read-only at /etc/fluidops:
#   kubelet.yaml, kubelet.kubeconfig, kube-proxy.yaml, kube-proxy.kubeconfig, ca.crt
#   containerd.toml, certs.d/ (the registry), cni.conflist, node.env (NODE_NAME, POD_CIDR, NODE_LABELS)
# Logs go to /var/log/fluidops/<process>.log.
set -euo pipefail
conf=/etc/fluidops
logs=/var/log/fluidops
bin=/opt/fluidops/bin
# shellcheck source=/dev/null  # written by cluster.sh for each node
. "$conf/node.env"
mkdir -p "$logs" /run/fluidops
# The address podman gave this host: the node's InternalIP, where the API server reaches the kubelet.
NODE_IP=$(ip -4 -o addr show dev eth0 | awk '{split($4, a, "/"); print a[1]; exit}')

log() { printf '[node %s] %s\n' "$NODE_NAME" "$*" >> "$logs/start.log"; }

# Mounts made under / reach other containers (a FUSE pod's Bidirectional hostPath, the CSI
# plugin's bind into /var/lib/kubelet), as on a systemd host.
mount --make-rshared /

# The kubelet sets six VM-wide sysctls unless they already hold its values (container_manager_linux.go,
# setupKernelTunables); /proc/sys is the VM's in a privileged container and the machine is shared.
# Each entry is covered, in this mount namespace only, by a read-only file holding the kubelet's value;
# protectKernelDefaults in kubelet.yaml makes a missing cover an error instead of a write.
shield_sysctl() {  # shield_sysctl PATH VALUE
  local cover=/run/fluidops/sysctl/${1//\//_}
  mkdir -p /run/fluidops/sysctl
  findmnt -n "/proc/sys/$1" >/dev/null && return 0
  echo "$2" > "$cover"
  mount --bind "$cover" "/proc/sys/$1"
  mount -o remount,bind,ro "/proc/sys/$1"
}
shield_sysctl vm/overcommit_memory 1
shield_sysctl vm/panic_on_oom 0
shield_sysctl kernel/panic 10
shield_sysctl kernel/panic_on_oops 1
shield_sysctl kernel/keys/root_maxkeys 1000000
shield_sysctl kernel/keys/root_maxbytes 25000000

# The kubelet's cgroupRoot, /kubelet, in every cgroup v1 hierarchy of this container's namespace;
# cpuset's children start empty, so they take their parent's CPUs and memory nodes.
for hierarchy in /sys/fs/cgroup/*/; do
  if [ ! -d "$hierarchy" ] || [ -L "${hierarchy%/}" ]; then continue; fi
  mkdir -p "${hierarchy}kubelet"
done
if [ -d /sys/fs/cgroup/cpuset/kubelet ]; then
  cat /sys/fs/cgroup/cpuset/cpuset.cpus > /sys/fs/cgroup/cpuset/kubelet/cpuset.cpus
  cat /sys/fs/cgroup/cpuset/cpuset.mems > /sys/fs/cgroup/cpuset/kubelet/cpuset.mems
fi

# Pods reach addresses outside the pod network (the API server, the registry) from the node's address.
iptables -t nat -C POSTROUTING -s 10.244.0.0/16 ! -d 10.244.0.0/16 -j MASQUERADE 2>/dev/null \
  || iptables -t nat -A POSTROUTING -s 10.244.0.0/16 ! -d 10.244.0.0/16 -j MASQUERADE

mkdir -p /etc/cni/net.d /etc/containerd /var/lib/kubelet /etc/kubernetes/manifests
cp "$conf/cni.conflist" /etc/cni/net.d/10-fluidops.conflist
# The kubelet's kubeconfig where kubeadm puts it: Fluid's CSI plugin patches its node with it.
install -m 0600 "$conf/kubelet.kubeconfig" /etc/kubernetes/kubelet.conf

supervise() {  # supervise NAME COMMAND...: runs it again 2 s after it exits, logging both
  local name=$1; shift
  (
    while true; do
      log "starting $name"
      "$@" >> "$logs/$name.log" 2>&1 || true
      log "$name exited; restarting in 2 s"
      sleep 2
    done
  ) &
}

supervise containerd "$bin/containerd" --config "$conf/containerd.toml"
for _ in $(seq 120); do [ -S /run/containerd/containerd.sock ] && break; sleep 0.5; done
supervise kubelet "$bin/kube" kubelet --config "$conf/kubelet.yaml" --kubeconfig /etc/kubernetes/kubelet.conf \
  --hostname-override "$NODE_NAME" --node-ip "$NODE_IP" --node-labels "$NODE_LABELS"
supervise kube-proxy "$bin/kube" kube-proxy --config "$conf/kube-proxy.yaml" --hostname-override "$NODE_NAME"
log "containerd, kubelet and kube-proxy supervised"
wait
