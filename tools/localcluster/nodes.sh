#!/usr/bin/env bash
# The node hosts as real Kubernetes nodes, in the manner of kind's node containers: each podman
# host runs containerd, runc, a kubelet and kube-proxy (node/start.sh), joined to the local API
# server with a certificate of its own, on a pod network of CNI bridges routed between the hosts.
# NAME is the node's; its host container is host_of NAME (instance.sh).
#   nodes.sh configure NAME...   write each node's configuration under $run/nodes/NAME
#   nodes.sh run NAME IMAGE      start the host container as a node (podman run flags below)
#   nodes.sh routes NAME...      each host's route to every other host's pods
#   nodes.sh gateway             the podman network's gateway: where the nodes reach this machine
#   nodes.sh address NAME        the host's address on the podman network
#   nodes.sh remove NAME...      the containers and their containerd volumes
# Called by cluster.sh, with its CONTAINERS_CONF.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log_name='localcluster nodes'
# shellcheck source=../lib.sh  # log, die, ip_of
. "$here/../lib.sh"
# shellcheck source=instance.sh  # cache, run, the ports and host_of
. "$here/instance.sh"
# The pod network: 10.244.N.0/24 on gpu-node-N; Services in 10.96.0.0/16, DNS at 10.96.0.10.
pod_network=10.244.0.0/16 cluster_dns=10.96.0.10

gateway() { podman network inspect podman --format '{{range .Subnets}}{{.Gateway}}{{end}}'; }
node_index() { [[ $1 =~ -([0-9]+)$ ]] && echo "${BASH_REMATCH[1]}"; }
pod_cidr() { echo "10.244.$(node_index "$1").0/24"; }

kubeconfig() {  # kubeconfig DIR NAME: a kubeconfig carrying DIR/pki/NAME's certificate and key, as
  # kubeadm writes /etc/kubernetes/kubelet.conf (Fluid's CSI plugin mounts that file alone)
  cat <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: fluidops-local
    cluster:
      server: "https://$(gateway):$apiserver_port"
      certificate-authority-data: $(base64 -w0 "$run/pki/ca.crt")
users:
  - name: $2
    user:
      client-certificate-data: $(base64 -w0 "$1/pki/$2.crt")
      client-key-data: $(base64 -w0 "$1/pki/$2.key")
contexts:
  - name: fluidops-local
    context: {cluster: fluidops-local, user: $2}
current-context: fluidops-local
KUBECONFIG
}

configure() {  # configure NAME: everything node/start.sh reads, in $run/nodes/NAME
  local name=$1 dir=$run/nodes/$1 registry
  registry="$(gateway):$registry_port"
  mkdir -p "$dir/pki" "$dir/certs.d/$registry"
  "$here/pki.sh" client "$dir/pki" kubelet "system:node:$name" system:nodes
  "$here/pki.sh" client "$dir/pki" kube-proxy system:kube-proxy
  cp "$run/pki/ca.crt" "$dir/ca.crt"
  (umask 077 && kubeconfig "$dir" kubelet > "$dir/kubelet.kubeconfig" && kubeconfig "$dir" kube-proxy > "$dir/kube-proxy.kubeconfig")
  # The seeds' machines are 8 x V100 nodes; the GPUs come from the device plugin.
  cat > "$dir/node.env" <<ENV
NODE_NAME=$name
POD_CIDR=$(pod_cidr "$name")
NODE_LABELS=aliyun.accelerator/nvidia_name=Tesla-V100-SXM2-16GB,node.kubernetes.io/instance-type=ecs.gn6v-c10g1.20xlarge
ENV
  cat > "$dir/kubelet.yaml" <<KUBELET
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: /etc/fluidops/ca.crt}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix:///run/containerd/containerd.sock
# This machine's layout: cgroup v1 (hybrid), no systemd in the node, swap not refused.
cgroupDriver: cgroupfs
cgroupRoot: /kubelet
failCgroupV1: false
failSwapOn: false
# The kubelet stops instead of writing a VM-wide sysctl (node/start.sh covers the six it checks).
protectKernelDefaults: true
clusterDNS: [$cluster_dns]
clusterDomain: cluster.local
staticPodPath: /etc/kubernetes/manifests
# The disk is the machine's, shared: evict only when it is really full, never collect images.
evictionHard: {memory.available: 100Mi, nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
imageGCHighThresholdPercent: 100
serializeImagePulls: false
healthzBindAddress: 127.0.0.1
KUBELET
  cat > "$dir/kube-proxy.yaml" <<PROXY
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: /etc/fluidops/kube-proxy.kubeconfig}
mode: iptables
clusterCIDR: $pod_network
# nf_conntrack_max is the VM's: kube-proxy leaves conntrack alone (kind does the same).
conntrack: {maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: 127.0.0.1:10256
PROXY
  cat > "$dir/cni.conflist" <<CNI
{
  "cniVersion": "1.0.0",
  "name": "fluidops",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "$(pod_cidr "$name")"}]], "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
CNI
  # The local registry speaks plain HTTP; every image the cluster runs comes from it.
  cat > "$dir/certs.d/$registry/hosts.toml" <<HOSTS
server = "http://$registry"
[host."http://$registry"]
  capabilities = ["pull", "resolve"]
HOSTS
  cat > "$dir/containerd.toml" <<CONTAINERD
version = 2
root = "/var/lib/containerd"
state = "/run/containerd"
[grpc]
  address = "/run/containerd/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$(cat "$run/images/pause")"
  # Without CAP_SYS_RESOURCE no process here may lower its oom_score_adj (a Guaranteed pod's would).
  restrict_oom_score_adj = true
  disable_apparmor = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "/etc/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "/etc/fluidops/certs.d"
CONTAINERD
}

run_node() {  # run_node NAME IMAGE MOUNT_FLAGS...: kind's podman flags (provision.go), our init
  local name=$1 image=$2 host; shift 2
  host=$(host_of "$name")
  podman volume exists "$host-containerd" || podman volume create --label fluidops.local=host "$host-containerd" >/dev/null
  # A host runs a whole node's pods: when the cores are short, it weighs as 8 other containers
  # (podman's default is 1024), whose processes a nice value outside does not reach.
  podman run -d --name "$host" --hostname "$name" --privileged --label fluidops.local=host --cpu-shares 8192 \
    --cgroupns=private --security-opt seccomp=unconfined --tmpfs /run --tmpfs /tmp \
    --volume "$host-containerd:/var/lib/containerd" \
    --volume "$run/nodes/$name:/etc/fluidops:ro" --volume "$here/node:/opt/fluidops/node:ro" \
    --volume "$cache/node-bin:/opt/fluidops/bin:ro" "$@" \
    "$image" /usr/bin/tini -- /opt/fluidops/node/start.sh >/dev/null
}

routes() {  # every host routes each other host's pod subnet to that host
  local name other
  for name in "$@"; do
    for other in "$@"; do
      [ "$name" != "$other" ] || continue
      podman exec "$(host_of "$name")" ip route replace "$(pod_cidr "$other")" via "$(ip_of "$(host_of "$other")")"
    done
  done
}

remove() {  # the node's own logs (containerd, kubelet, kube-proxy) go to $run/logs/nodes/NAME first
  local name host
  for name in "$@"; do
    host=$(host_of "$name")
    if podman container exists "$host"; then
      mkdir -p "$run/logs/nodes/$name"
      podman cp "$host:/var/log/fluidops/." "$run/logs/nodes/$name/" 2>/dev/null || true
      podman rm -f -t 0 "$host" >/dev/null
    fi
    podman volume exists "$host-containerd" && podman volume rm -f "$host-containerd" >/dev/null
  done
  return 0
}

case ${1:-} in
  configure) shift; for name in "$@"; do configure "$name"; done ;;
  run) shift; [ $# -ge 2 ] || die "usage: nodes.sh run NAME IMAGE [PODMAN_FLAGS...]"; run_node "$@" ;;
  routes) shift; routes "$@" ;;
  gateway) gateway ;;
  address) [ $# -eq 2 ] || die "usage: nodes.sh address NAME"; ip_of "$(host_of "$2")" ;;
  remove) shift; remove "$@" ;;
  *) echo "usage: $0 configure NAME... | run NAME IMAGE [FLAGS...] | routes NAME... | gateway | address NAME | remove NAME..." >&2; exit 2 ;;
esac
