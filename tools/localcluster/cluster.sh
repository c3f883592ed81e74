#!/usr/bin/env bash
# The local cluster: real etcd, kube-apiserver, kube-controller-manager and kube-scheduler; the
# four podman hosts gpu-node-1..4 as real nodes (nodes.sh: containerd, kubelet, kube-proxy), whose
# pods run the images built here (images.sh) from a local registry; the controllers as pods
# (Fluid's those of its chart, which whoever installs it starts; mpi-operator's those of its
# manifests); kwok and simulator.py only for simulated nodes beyond the hosts (cluster.sh nodes
# COUNT) and JindoRuntime.
# FLUIDOPS_NODES=kwok is the simulated cluster tests/cluster still uses: kwok plays the four
# nodes' kubelets (no pod runs), Fluid's controllers and mpi-operator run out of cluster, and
# simulator.py plays JindoRuntime.
# FLUIDOPS_CLUSTER_INSTANCE=N runs a second cluster beside this one (instance.sh).
#   cluster.sh up          start it (builds the parts on first use); harmless when already up
#   cluster.sh down        stop every process, remove the hosts and the cluster's state (the logs
#                          stay in the cache's last-logs)
#   cluster.sh kubeconfig  print the kubeconfig path
#   cluster.sh status      say what runs
#   cluster.sh show        the nodes, Helm releases and host cache mounts (after make demo)
#   cluster.sh ssh HOST... let Ansible reach more host containers over SSH, as it reaches the
#                          nodes' (make bench's own hosts)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log_name=localcluster
# shellcheck source=../lib.sh  # log, die, wait_for, show_tail, repo, tools_pythonpath
. "$here/../lib.sh"
# shellcheck source=instance.sh  # cache, run, the ports and host_of, by FLUIDOPS_CLUSTER_INSTANCE
. "$here/instance.sh"
kubeconfig="$run/kubeconfig"
nodes=(gpu-node-1 gpu-node-2 gpu-node-3 gpu-node-4)  # the nodes' names; their hosts: host_of NAME
components=(etcd apiserver controller-manager scheduler registry kwok simulator fluid-dataset-controller fluid-alluxioruntime-controller mpi-operator)
# FLUIDOPS_NODES: real (the default) makes the node hosts real nodes; kwok simulates their kubelets.
node_mode=${FLUIDOPS_NODES:-real}
# scale_nodes beside real nodes: the simulated ones take kwok's NoSchedule taint, and the label
# type=virtual-kubelet, which Fluid's chart keeps its controllers off (templates/_helpers.tpl,
# fluid.controlplane.affinity): they tolerate every taint, and no container runs there.
kwok_taint=false
export CONTAINERS_CONF=${CONTAINERS_CONF:-$repo/tools/podman/containers.conf}

kubectl() { "$cache/kubectl" --kubeconfig "$kubeconfig" "$@"; }

# A component that exited is not running, even while it is a zombie: nothing here reaps the
# processes whose starter has gone, and kill -0 succeeds on those.
running() {
  local pid
  [ -f "$run/pids/$1" ] && pid=$(cat "$run/pids/$1") && kill -0 "$pid" 2>/dev/null \
    && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]
}

start() {  # start NAME COMMAND...: in its own session, logging to logs/NAME.log
  local name=$1; shift
  running "$name" && return 0
  setsid "$@" >"$run/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$run/pids/$name"
}

# A controller out of cluster, kept as its Deployment keeps its pod: started again whenever it
# exits. mpi-operator exits when it cannot renew its leader lease within 5 s (fixed in v0.7.0's
# cmd/mpi-operator/app/server.go), which a busy machine's apiserver can exceed.
start_restarting() {  # start_restarting NAME COMMAND...
  local name=$1; shift
  # shellcheck disable=SC2016  # expanded by the loop's own shell
  start "$name" bash -c 'while :; do "$@" || echo "[localcluster] $0 exited ($?): started again in 2 s"; sleep 2; done' "$name" "$@"
}

show_log_and_die() { show_tail "$run/logs/$1.log" 20; die "$2"; }  # show_log_and_die COMPONENT MESSAGE

write_credentials() {
  mkdir -p "$run"/{pki,logs,pids,etcd}
  # The API server's certificate names the address the node hosts reach this machine at.
  "$here/pki.sh" server "$("$here/nodes.sh" gateway)"
  [ -f "$run/pki/sa.key" ] || openssl genrsa -out "$run/pki/sa.key" 2048 2>/dev/null
  if [ ! -f "$run/pki/tokens.csv" ]; then
    local token; token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    echo "$token,admin,admin,\"system:masters\"" > "$run/pki/tokens.csv"
    chmod 600 "$run/pki/tokens.csv"
  fi
}

write_kubeconfig() {
  cat > "$kubeconfig.part" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: fluidops-local
    cluster:
      server: https://127.0.0.1:$apiserver_port
      certificate-authority: $run/pki/ca.crt
users:
  - name: admin
    user:
      token: $(cut -d, -f1 "$run/pki/tokens.csv")
contexts:
  - name: fluidops-local
    context: {cluster: fluidops-local, user: admin}
current-context: fluidops-local
KUBECONFIG
  chmod 600 "$kubeconfig.part" && mv "$kubeconfig.part" "$kubeconfig"
}

start_control_plane() {
  start etcd "$cache/kube" etcd --name local --data-dir "$run/etcd" --unsafe-no-fsync --log-level warn \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer_port" \
    --initial-cluster "local=http://127.0.0.1:$etcd_peer_port"
  wait_for etcd 30 curl -sf "http://127.0.0.1:$etcd_port/health" || show_log_and_die etcd "etcd did not start"

  # It listens where the node hosts reach it (the podman network's gateway) as well as on loopback,
  # and is advertised there: the kubernetes Service, which pods use, points at that address.
  # Kubelets authenticate with certificates of the CA (pki.sh); the Node authorizer and
  # NodeRestriction hold each to its own node and pods.
  start apiserver "$cache/kube" apiserver \
    --etcd-servers "http://127.0.0.1:$etcd_port" --bind-address 0.0.0.0 --advertise-address "$("$here/nodes.sh" gateway)" \
    --secure-port "$apiserver_port" --tls-cert-file "$run/pki/apiserver.crt" --tls-private-key-file "$run/pki/apiserver.key" \
    --client-ca-file "$run/pki/ca.crt" --service-cluster-ip-range 10.96.0.0/16 --allow-privileged=true \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$run/pki/sa.key" --service-account-signing-key-file "$run/pki/sa.key" \
    --token-auth-file "$run/pki/tokens.csv" --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction \
    --kubelet-client-certificate "$run/pki/apiserver-kubelet-client.crt" --kubelet-client-key "$run/pki/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types InternalIP,Hostname --enable-priority-and-fairness=false
  write_kubeconfig
  wait_for "the apiserver" 300 kubectl get --raw /readyz || show_log_and_die apiserver "the apiserver did not become ready"

  # A node is marked NotReady only after 10 minutes without a lease: while the apiserver is down
  # (tests stop it), kwok cannot renew leases, and unlike a kubelet it does not put back the
  # pods' Ready condition that the node lifecycle controller takes away meanwhile.
  start controller-manager "$cache/kube" controller-manager --kubeconfig "$kubeconfig" \
    --authentication-kubeconfig "$kubeconfig" --authorization-kubeconfig "$kubeconfig" \
    --leader-elect=false --bind-address 127.0.0.1 --secure-port "$controller_manager_port" \
    --service-account-private-key-file "$run/pki/sa.key" --use-service-account-credentials=false \
    --root-ca-file "$run/pki/ca.crt" \
    --controllers '*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-route' \
    --node-monitor-grace-period 10m
  start scheduler "$cache/kube" scheduler --kubeconfig "$kubeconfig" \
    --authentication-kubeconfig "$kubeconfig" --authorization-kubeconfig "$kubeconfig" \
    --leader-elect=false --bind-address 127.0.0.1 --secure-port "$scheduler_port"
}

install_crds() {
  # kwok's custom-resource Stages and Fluid's dataset controller need these CRDs before they start.
  kubectl apply --server-side --force-conflicts -f "$cache/fluid/charts/fluid/fluid/crds/" \
    -f "$cache/mpi-operator/kubeflow.org_mpijobs.yaml" >/dev/null
  kubectl wait --for condition=established --timeout 60s crd --all >/dev/null
}

create_nodes() {  # create_nodes [NAME...]: the simulated V100 nodes (default: the hosts' names)
  local name
  (($#)) || set -- "${nodes[@]}"
  for name in "$@"; do
    # The seeds' machines: ecs.gn6v-c10g1.20xlarge, 82 vCPU, 336 GiB, 8 x Tesla V100-SXM2-16GB.
    cat <<NODE
---
apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: $name
    node.kubernetes.io/instance-type: ecs.gn6v-c10g1.20xlarge
    aliyun.accelerator/nvidia_name: Tesla-V100-SXM2-16GB
    type: $([ "$kwok_taint" = false ] && echo kwok || echo virtual-kubelet)
$([ "$kwok_taint" = false ] || echo 'spec: {taints: [{key: kwok.x-k8s.io/node, value: fake, effect: NoSchedule}]}')
status:
  capacity: {cpu: "82", memory: 336Gi, pods: "110", nvidia.com/gpu: "8", ephemeral-storage: 500Gi}
  allocatable: {cpu: "82", memory: 336Gi, pods: "110", nvidia.com/gpu: "8", ephemeral-storage: 500Gi}
NODE
  done | kubectl apply -f - >/dev/null
}

start_kwok() {
  start kwok "$cache/kwok" --kubeconfig "$kubeconfig" --config "$here/kwok.yaml" \
    --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake --node-lease-duration-seconds 40 \
    --cidr 10.244.0.1/16 --node-ip 127.0.0.1 --node-port "$kwok_port" --server-address "127.0.0.1:$kwok_port"
  # With real nodes there is no simulated node to wait for (start_kwok 0).
  [ "${1:-}" = 0 ] || wait_for "four Ready nodes" 180 nodes_ready || show_log_and_die kwok "the simulated nodes did not become Ready"
}

start_simulator() {
  local python=${FLUIDOPS_PYTHON:-}
  [ -n "$python" ] || python="$(cat "$cache/../.venv-path" 2>/dev/null)/bin/python"
  [ -x "$python" ] || die "no Python with the kubernetes client (looked for $python): run make deps, or set FLUIDOPS_PYTHON"
  start simulator env PYTHONPATH="$tools_pythonpath" "$python" -m localcluster.simulator --kubeconfig "$kubeconfig"
  sleep 1
  running simulator || show_log_and_die simulator "the simulator stopped"
}

start_controllers() {
  if [ "$node_mode" = real ]; then
    # With real nodes the controllers are pods, as on any cluster: Fluid's are the pods of its
    # chart, which whoever installs it starts (the fluid-controllers image); mpi-operator's are
    # those of its own manifests.
    deploy_mpi_operator
    return 0
  fi
  start_fluid_controllers
  # mpi-operator holds a lease in its lock namespace before it starts.
  kubectl create namespace mpi-operator --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  start_restarting mpi-operator "$cache/mpi-operator/mpi-operator" -kubeConfig "$kubeconfig" -lock-namespace mpi-operator \
    -kube-api-qps 50 -kube-api-burst 100
  local name
  for name in fluid-dataset-controller fluid-alluxioruntime-controller mpi-operator; do
    wait_for "$name" 180 controller_started "$name" || show_log_and_die "$name" "$name did not start"
  done
}

# mpi-operator as its standalone manifests deploy it (manifests/overlays/standalone of the module:
# the mpi-operator namespace, RBAC and Deployment), its image the one built here, by digest.
deploy_mpi_operator() {
  local image dir=$run/mpi-operator
  image=$(cat "$run/images/mpi-operator")
  # kustomize takes no absolute path: the manifests beside the kustomization.
  mkdir -p "$dir" && cp -r "$cache/mpi-operator/manifests" "$dir/"
  cat > "$dir/kustomization.yaml" <<KUSTOMIZATION
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [manifests/overlays/standalone]
images:
  - {name: mpioperator/mpi-operator, newName: "$(image_name "$image")", digest: "${image#*@}"}
KUSTOMIZATION
  kubectl apply --server-side --force-conflicts -k "$dir" >/dev/null
  wait_for "mpi-operator's pod" 300 kubectl -n mpi-operator rollout status deployment/mpi-operator --timeout 1s \
    || die "mpi-operator did not start: $(kubectl -n mpi-operator describe pods | tail -n 15)"
}

image_name() {  # image_name REGISTRY/PATH:TAG@DIGEST: REGISTRY/PATH
  local name=${1%@*}
  echo "${name%:*}"
}

start_fluid_controllers() {
  # Fluid's controllers as their images run them (docker/Dockerfile.dataset, .alluxioruntime):
  # Helm as ddc-helm on PATH, the runtime and DataLoad charts in $HOME/charts, the chart's
  # HELM_DRIVER and namespace. They take the kubeconfig from KUBECONFIG only.
  local home="$run/fluid"
  mkdir -p "$home/bin" "$home/tmp"
  ln -sfn "$cache/helm" "$home/bin/ddc-helm"
  ln -sfn "$cache/fluid/charts" "$home/charts"
  # FLUID_RUNTIME_RECONCILE_DURATION (default 90 s) and FLUID_SYNC_RETRY_DURATION (default 5 s,
  # the chart's 15 s) are how often a Ready runtime refreshes its dataset's cache states: every
  # 10 s here, as inventory/local sets them on the real nodes, so a warm-up shows its progress
  # within the tests' time. Each refresh runs the alluxio CLI, a JVM.
  # The rest is what the chart's Deployments give them (templates/controller/*.yaml at the chart's
  # defaults): without MOUNT_ROOT the FUSE mounts under /alluxio, where the CSI plugin never looks.
  local fluid_env=(env KUBECONFIG="$kubeconfig" HOME="$home" TMPDIR="$home/tmp" PATH="$home/bin:$PATH"
    HELM_DRIVER=configmap MY_POD_NAMESPACE=fluid-system FLUID_WORKDIR="$home/tmp" MOUNT_ROOT=/runtime-mnt
    CRITICAL_FUSE_POD=true ALLUXIO_MOUNT_CONFIG_STORAGE=configmap
    FLUID_RUNTIME_RECONCILE_DURATION=10 FLUID_SYNC_RETRY_DURATION=10s)
  start_restarting fluid-dataset-controller "${fluid_env[@]}" "$cache/fluid-controllers/dataset-controller" start \
    --development=false --metrics-addr "$fluid_dataset_metrics"
  start_restarting fluid-alluxioruntime-controller "${fluid_env[@]}" "$cache/fluid-controllers/alluxioruntime-controller" start \
    --development=false --metrics-addr "$fluid_alluxio_metrics" --runtime-node-port-range 20000-26000
}

controller_started() {  # running, and its log says its manager or informers started
  running "$1" && grep -qE 'Starting workers|Starting EventSource|Starting controller|starting dataset-controller|starting alluxioruntime-controller' "$run/logs/$1.log"
}

# A node is Ready some time before the node lifecycle controller takes off the not-ready taint it
# was made with; until then the scheduler places nothing there.
nodes_ready() {  # nodes_ready [COUNT]: that many nodes, every one Ready and untainted by its state (default: one per host)
  local states
  states=$(kubectl get nodes -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status} {.spec.taints[*].key}{"\n"}{end}')
  [ "$(grep -c '^True' <<< "$states")" -eq "${1:-${#nodes[@]}}" ] && [ "$(grep -c . <<< "$states")" -eq "${1:-${#nodes[@]}}" ] \
    && ! grep -qE 'node\.kubernetes\.io/(not-ready|unreachable)' <<< "$states"
}

# More simulated GPU nodes than hosts, for the benchmarks at scale (make bench): kwok nodes are
# API objects with simulated kubelets; the four podman hosts stay, as the OS phase does not grow
# with them. gpu-node-1..COUNT, the hosts' four first; nodes above COUNT are deleted. Beside real
# nodes (the registry runs), the hosts' nodes are left to their kubelets, and the simulated ones
# carry kwok's taint, so that no pod goes where no container can run.
scale_nodes() {
  local count=${1:-} names=() extra i first=1
  if ! [[ $count =~ ^[0-9]+$ ]] || ((count < ${#nodes[@]})); then
    die "cluster.sh nodes COUNT: COUNT=${count:-(none)} must be a whole number, at least ${#nodes[@]} (the node hosts)"
  fi
  if ! running apiserver || ! running kwok; then die "the local cluster is not up: run make cluster-up first"; fi
  ! running registry || first=$((${#nodes[@]} + 1)) kwok_taint=true
  for ((i = first; i <= count; i++)); do names+=("gpu-node-$i"); done
  ((${#names[@]} == 0)) || create_nodes "${names[@]}"
  extra=$(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' \
    | awk -F- -v count="$count" '/^gpu-node-[0-9]+$/ && $3 > count')
  # shellcheck disable=SC2086 # one word per node name
  [ -z "$extra" ] || kubectl delete node $extra >/dev/null
  wait_for "$count Ready nodes" 180 nodes_ready "$count" || show_log_and_die kwok "the simulated nodes did not become Ready"
  log "$count simulated GPU nodes, ${#nodes[@]} node hosts"
}

start_hosts() {
  local image name mounts=(-v "$run/standins:/standins")  # the under-stores' stand-ins (write_imagenet_standin)
  image=$("$repo/tools/hostimage/build.sh")
  mkdir -p "$run/standins"
  for name in "${nodes[@]}"; do
    if podman container exists "$(host_of "$name")"; then
      podman start "$(host_of "$name")" >/dev/null
    elif [ "$node_mode" = real ]; then
      "$here/nodes.sh" run "$name" "$image" "${mounts[@]}"
    else
      podman run -d --name "$(host_of "$name")" --hostname "$name" --privileged --label fluidops.local=host "${mounts[@]}" "$image" >/dev/null
    fi
  done
  start_ssh "${nodes[@]}"
}

# Ansible reaches the node hosts as a site's GPU nodes: over SSH as root, with this cluster's key
# (tools/hostimage/ssh.sh). The local inventory (hosts.yml) gives ssh $run/ssh/config: each host's
# address under its node's name, the key, the hosts' own keys, and its connections kept open
# between tasks in $run/ssh/cp.
# start_ssh NAME...: the host containers of NAME (host_of), the nodes' or make bench's own.
start_ssh() {
  local name pairs=()
  for name in "$@"; do pairs+=("$name=$(host_of "$name")"); done
  "$repo/tools/hostimage/ssh.sh" start "$run/ssh" "${pairs[@]}"
}

stop_ssh() {  # the connections Ansible left open to the hosts
  "$repo/tools/hostimage/ssh.sh" stop "$run/ssh"
}

# The local registry every image of the real nodes comes from. It listens on every address, as the
# API server does (the nodes reach both at the podman gateway, which exists only once a container
# is up); its storage is a cache, kept across clusters, so a push sends only new layers.
start_registry() {
  local address; address="$("$here/nodes.sh" gateway):$registry_port"
  mkdir -p "$cache/registry-data"
  cat > "$run/registry.yml" <<REGISTRY
version: 0.1
log: {level: warn}
storage:
  filesystem: {rootdirectory: $cache/registry-data}
http:
  addr: 0.0.0.0:$registry_port
REGISTRY
  start registry env OTEL_TRACES_EXPORTER=none "$cache/registry" serve "$run/registry.yml"
  wait_for "the registry" 60 curl -sf "http://$address/v2/" || show_log_and_die registry "the registry did not start"
  "$here/images.sh" push "$address"
  # Where the local inventory's fluidops_image_registry finds it.
  echo "$address" > "$run/registry"
}

# The local inventory's dataset (inventory/local) reads a stand-in of ImageNet from the directory
# every node host mounts at /standins: its TFRecord shards' names and layout at this machine's
# scale (train 32 and validation 4 of ImageNet's 1024 and 128, 256 KiB each), random bytes.
write_imagenet_standin() {
  local tree=$run/standins/imagenet split shards index
  [ ! -d "$tree" ] || return 0
  for split in train:32 validation:4; do
    shards=${split#*:} split=${split%:*}
    mkdir -p "$tree.part/$split"
    for ((index = 0; index < shards; index++)); do
      head -c 262144 /dev/urandom > "$(printf '%s/%s/%s-%05d-of-%05d' "$tree.part" "$split" "$split" "$index" "$shards")"
    done
  done
  mv "$tree.part" "$tree"
}

# The keys of the local cluster's S3 stand-in for OSS (addons.yaml's versitygw): made for each
# cluster, kept in $run/object-store for the local inventory (datasets_s3_secrets), and given to the
# gateway in a Secret, through kubectl's standard input (never on a command line).
object_store_keys() {
  local keys=$run/object-store
  if [ ! -s "$keys/access_key_secret" ]; then
    mkdir -p "$keys" && chmod 0700 "$keys"
    echo "local-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')" > "$keys/access_key_id"
    od -An -N24 -tx1 /dev/urandom | tr -d ' \n' > "$keys/access_key_secret"
  fi
  kubectl apply -f - >/dev/null <<KEYS
apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: Namespace, metadata: {name: object-store}}
  - apiVersion: v1
    kind: Secret
    metadata: {name: s3-root-keys, namespace: object-store}
    stringData: {ROOT_ACCESS_KEY: "$(cat "$keys/access_key_id")", ROOT_SECRET_KEY: "$(cat "$keys/access_key_secret")"}
KEYS
}

# The node hosts as real nodes: their configuration, the containers, routes between their pod
# networks, then four Ready nodes.
start_real_nodes() {
  "$here/nodes.sh" configure "${nodes[@]}"
  start_hosts
  "$here/nodes.sh" routes "${nodes[@]}"
  wait_for "four Ready nodes" 300 nodes_ready || { show_node_logs; die "the real nodes did not become Ready"; }
  # Cluster DNS, the simulated GPUs and the S3 stand-in (addons.yaml), with the images just pushed.
  object_store_keys
  sed -e "s|\${COREDNS_IMAGE}|$(cat "$run/images/coredns")|" \
    -e "s|\${GPU_DEVICE_PLUGIN_IMAGE}|$(cat "$run/images/gpu-device-plugin")|" \
    -e "s|\${VERSITYGW_IMAGE}|$(cat "$run/images/versitygw")|" "$here/addons.yaml" \
    | kubectl apply -f - >/dev/null
  wait_for "8 GPUs on every node" 300 gpus_advertised || { show_node_logs; die "the device plugin did not advertise the GPUs"; }
  wait_for "cluster DNS" 300 kubectl -n kube-system wait --for condition=available deployment/coredns --timeout 1s \
    || die "CoreDNS did not become available: $(kubectl -n kube-system describe pods -l k8s-app=kube-dns | tail -n 15)"
  wait_for "the S3 stand-in" 300 kubectl -n object-store wait --for condition=available deployment/s3 --timeout 1s \
    || die "the S3 stand-in did not become available: $(kubectl -n object-store describe pods -l app=s3 | tail -n 15)"
}

gpus_advertised() {  # every node's allocatable nvidia.com/gpu is 8
  [ "$(kubectl get nodes -o jsonpath='{range .items[*]}{.status.allocatable.nvidia\.com/gpu}{"\n"}{end}' | grep -cx 8)" -eq "${#nodes[@]}" ]
}

show_node_logs() {  # each node's kubelet log tail, on stderr
  local name
  for name in "${nodes[@]}"; do
    log "last lines of $name's kubelet log:"
    podman exec "$(host_of "$name")" tail -n 15 /var/log/fluidops/kubelet.log >&2 2>/dev/null || true
  done
}

up() {
  local start_time=$SECONDS
  # mpi-operator v0.7.0 listens on :8080, fixed, for its health: out of cluster, one at a time.
  [ "$node_mode" = real ] || ((instance == 0)) \
    || die "FLUIDOPS_CLUSTER_INSTANCE=$instance: only a cluster of real nodes (FLUIDOPS_NODES=real) runs beside the default one: the simulated one runs mpi-operator out of cluster, where its health port 8080 is fixed"
  case $node_mode in
    kwok) "$here/build.sh" ;;
    real) "$here/build.sh" && "$here/build.sh" kube node versitygw && "$here/images.sh" build ;;
    *) die "FLUIDOPS_NODES=$node_mode: use kwok (simulated kubelets) or real (kubelets in the node hosts)" ;;
  esac
  write_credentials
  log "starting etcd, kube-apiserver, kube-controller-manager, kube-scheduler"
  start_control_plane
  install_crds
  if [ "$node_mode" = real ]; then
    log "starting the registry and the node hosts as real nodes (containerd, kubelet, kube-proxy): ${nodes[*]}"
    start_registry
    start_real_nodes
    write_imagenet_standin
    log "starting kwok (for simulated nodes beyond the hosts), the simulated programs and mpi-operator"
    start_kwok 0
  else
    create_nodes
    log "starting kwok (simulated kubelets), the simulated programs, Fluid's controllers and mpi-operator"
    start_kwok
  fi
  start_simulator
  start_controllers
  if [ "$node_mode" = kwok ]; then
    log "starting the node hosts (podman): ${nodes[*]}"
    start_hosts
  fi
  log "up in $((SECONDS - start_time)) s; server $(kubectl version -o json | python3 -c 'import json,sys; print(json.load(sys.stdin)["serverVersion"]["gitVersion"])'); kubeconfig $kubeconfig"
}

# The last cluster's logs outlive it, so a failed run (a CI one) can still be read after `down`:
# the components'.
keep_logs() {
  local kept=$last_logs
  [ -d "$run" ] || return 0
  rm -rf "$kept"
  mkdir -p "$kept"
  [ ! -d "$run/logs" ] || cp -r "$run/logs" "$kept/components"
}

down() {
  local index name pid
  for ((index = ${#components[@]} - 1; index >= 0; index--)); do
    name=${components[index]}
    [ -f "$run/pids/$name" ] || continue
    pid=$(cat "$run/pids/$name")
    if kill -0 "$pid" 2>/dev/null; then
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -KILL -- "-$pid" 2>/dev/null || true
    fi
    rm -f "$run/pids/$name"
  done
  stop_ssh
  "$here/nodes.sh" remove "${nodes[@]}"
  keep_logs
  rm -rf "$run"
  log "down: no cluster process, host container or state left (its logs: $last_logs)"
}

status() {
  local name
  for name in "${components[@]}"; do
    if running "$name"; then echo "$name: running (pid $(cat "$run/pids/$name"))"; else echo "$name: stopped"; fi
  done
  for name in "${nodes[@]}"; do
    echo "host $(host_of "$name"): $(podman container inspect -f '{{.State.Status}}' "$(host_of "$name")" 2>/dev/null || echo absent)"
  done
}

show() {  # what the demo did: nodes, Helm releases, each host's cache mounts (reads only)
  echo "== Kubernetes nodes ($([ "$node_mode" = real ] && echo "real: kubelets in the node hosts" || echo "simulated by kwok"))"
  kubectl get nodes -L aliyun.accelerator/nvidia_name \
    -o custom-columns='NAME:.metadata.name,READY:.status.conditions[?(@.type=="Ready")].status,GPUS:.status.allocatable.nvidia\.com/gpu,CPU:.status.allocatable.cpu,MEMORY:.status.allocatable.memory,ACCELERATOR:.metadata.labels.aliyun\.accelerator/nvidia_name'
  echo
  echo "== Helm releases"
  "$cache/helm" --kubeconfig "$kubeconfig" list --all-namespaces
  echo
  echo "== Cache mounts on the node hosts (podman containers)"
  for host in "${nodes[@]}"; do
    # fstab carries the configured size (ramfs reports none); findmnt says whether it is mounted.
    podman exec "$(host_of "$host")" sh -c 'grep -E "[[:space:]](ramfs|tmpfs)[[:space:]]" /etc/fstab | while read -r _ target type opts _; do
        echo "$target $type $opts $(findmnt -n "$target" >/dev/null && echo mounted || echo NOT-mounted)"; done' 2>/dev/null \
      | sed "s/^/$host  /" || echo "$host  (not running)"
  done
}

case ${1:-} in
  up) up ;;
  down) down ;;
  kubeconfig) echo "$kubeconfig" ;;
  status) status ;;
  show) show ;;
  nodes) scale_nodes "${2:-}" ;;
  # Hosts made again may answer at an old address: the connections kept open to it go first.
  ssh) shift; [ -d "$run" ] || die "the local cluster is not up: run make cluster-up first"; stop_ssh; start_ssh "$@" ;;
  *) echo "usage: $0 up|down|kubeconfig|status|show|nodes COUNT|ssh HOST..." >&2; exit 2 ;;
esac
