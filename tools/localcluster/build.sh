#!/usr/bin/env bash
# Builds or fetches the local cluster's parts into the cache, keyed by version, and prints
# nothing else than progress on stderr. A second run finds everything and returns at once.
#   kube      kube-apiserver, kube-controller-manager, kube-scheduler, etcd, kubelet and kube-proxy
#             in one binary, and kubectl on its own (kube/)
#   kwok      simulated kubelets, go install sigs.k8s.io/kwok/cmd/kwok
#   helm      go install helm.sh/helm/v3/cmd/helm, with its real version stamped in, and the
#             helm-diff plugin (go install github.com/databus23/helm-diff/v3) in a plugin
#             directory beside it; $cache/helm runs Helm with that directory as HELM_PLUGINS
#   fluid     the Fluid charts and CRDs from the Fluid Go module (plus a packaged archive), and
#             Fluid's dataset controller (with the DataLoad controller), AlluxioRuntime and
#             ThinRuntime controllers and application controller (fluidapp, which the chart deploys
#             on real nodes)
#   fluid-previous  the same of Fluid's release before (FLUID_PREVIOUS_VERSION), and its CSI plugin:
#             what the upgrade test installs first
#   mpijob    the MPIJob CRD, mpi-operator's manifests and controller from the mpi-operator Go module
#   alluxio   the standalone Alluxio chart from the Alluxio source module (plus a packaged archive)
#   versitygw the S3 gateway of the data-path benchmark (tools/bench), only when named
#   node      what a real node host runs (only when named): containerd, its runc shim and ctr
#             (github.com/containerd/containerd), gathered with kube (kubelet, kube-proxy) into
#             node-bin, which the hosts mount; the local registry (distribution/v3 cmd/registry);
#             Fluid's CSI plugin (cmd/csi of the Fluid module)
# build.sh [PART...] builds only those parts (and helm, which packages the charts); none: all.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
log_name='localcluster build'
# shellcheck source=../lib.sh  # log, module_dir, cache_root
. "$here/../lib.sh"
cache=$cache_root/localcluster
mkdir -p "$cache"
export CGO_ENABLED=0
parts=("$@")
wants() { [ ${#parts[@]} -eq 0 ] || [[ " ${parts[*]} " == *" $1 "* ]]; }

# Points the link NAME at TARGET: left alone when it already does, else replaced by one rename, so
# a reader beside this (make test runs its suites side by side) never finds it missing.
link() {  # link TARGET NAME
  [ "$(readlink "$2" 2>/dev/null)" = "$1" ] && return 0
  ln -sfn "$1" "$2.$$" && mv -Tf "$2.$$" "$2"
}
# Runs a long command, saying every 30 s that it still runs, then how long it took.
timed() {
  local start=$SECONDS pid status=0
  "$@" & pid=$!
  while ! wait_quietly "$pid" 30; do log "  still working ($((SECONDS - start)) s)"; done
  wait "$pid" || status=$?
  ((status == 0)) || { log "  failed after $((SECONDS - start)) s"; return "$status"; }
  log "  done in $((SECONDS - start)) s"
}
wait_quietly() {  # true once PID has ended, false after SECONDS while it still runs
  local pid=$1 left=$2
  while ((left-- > 0)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 1; done
  ! kill -0 "$pid" 2>/dev/null
}

# Go programs of modules with replace lines cannot be go-installed: build them from a writable
# copy of the downloaded module, resolving its requirements with -mod=mod (its vendor/ holds only
# modules.txt). go_build_module MODULE@VERSION OUTPUT_DIR NAME=PACKAGE... (GO_LDFLAGS: more
# -ldflags; MODULE_SUM: the module's pinned hash, for module_dir)
go_build_module() {
  local module=$1 out=$2 src work target; shift 2
  src=$(module_dir "$module" "${MODULE_SUM:-}")
  work=$(mktemp -d "$cache/.build.XXXXXX")
  cp -r "$src/." "$work" && chmod -R u+w "$work" && rm -rf "$work/vendor"
  for target in "$@"; do
    (cd "$work" && timed go build -mod=mod -trimpath -ldflags "-s -w ${GO_LDFLAGS:-}" -o "$out/${target%%=*}.part" "./${target#*=}")
    mv "$out/${target%%=*}.part" "$out/${target%%=*}"
  done
  rm -rf "$work"
}

go_version_of() { awk -v m="$1" '$1 == m {print $2}' "$here/kube/go.mod" | head -1; }
if [ "$(go_version_of k8s.io/kubernetes)" != "$KUBE_VERSION" ]; then
  log "KUBE_VERSION=$KUBE_VERSION but kube/go.mod requires k8s.io/kubernetes $(go_version_of k8s.io/kubernetes): change both together"
  exit 2
fi

if wants kube; then
  # kube: keyed by the version and the hash of the wrapper module, so an edit rebuilds it.
  kube_key=$(cat "$here/kube/go.mod" "$here/kube/go.sum" "$here/kube/main.go" | sha256sum | cut -c1-10)
  kube_bin="$cache/kube-$KUBE_VERSION-$kube_key/kube"
  if [ ! -x "$kube_bin" ]; then
    log "building kube $KUBE_VERSION (apiserver, controller-manager, scheduler, etcd, kubelet, kube-proxy) and kubectl: first run only, 10-20 min on 2 cores"
    minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
    ldflags="-s -w"
    for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      # Without these /version reports v0.0.0-master and Helm charts comparing versions (Fluid's) break.
      ldflags+=" -X $pkg.gitVersion=$KUBE_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
    done
    (cd "$here/kube" && timed go build -trimpath -ldflags "$ldflags" -o "$kube_bin.part" . \
      && timed go build -trimpath -ldflags "$ldflags" -o "$kube_bin.kubectl" k8s.io/kubernetes/cmd/kubectl)
    mv "$kube_bin.kubectl" "$(dirname "$kube_bin")/kubectl"
    mv "$kube_bin.part" "$kube_bin"
  fi
  link "$kube_bin" "$cache/kube"
  link "$(dirname "$kube_bin")/kubectl" "$cache/kubectl"
fi

if wants kwok; then
  kwok_bin="$cache/kwok-$KWOK_VERSION/kwok"
  if [ ! -x "$kwok_bin" ]; then
    log "installing kwok $KWOK_VERSION"
    GOBIN="$(dirname "$kwok_bin")" timed go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  fi
  link "$kwok_bin" "$cache/kwok"
fi

helm_bin="$cache/helm-$HELM_VERSION/helm"
if [ ! -x "$helm_bin" ]; then
  log "installing helm $HELM_VERSION"
  GOBIN="$(dirname "$helm_bin")" timed go install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
    "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
fi

# helm-diff, which kubernetes.core.helm runs to tell whether an upgrade changes the release (without
# it the module warns that its idempotency check can miss changes). A Helm plugin directory: the
# module's plugin.yaml and bin/diff (its install hooks download a release: not run, nor needed).
diff_dir="$cache/helm-plugins-$HELM_DIFF_VERSION"
if [ ! -x "$diff_dir/diff/bin/diff" ]; then
  log "installing the helm-diff plugin $HELM_DIFF_VERSION"
  # The checksum database answers for its dependencies, not for it: its zip's hash is checked
  # against the pin. Built in a copy of the module by its own go.sum (go install asks the proxy for
  # the module's version list, to warn of a deprecation, and the proxy refuses that list here).
  diff_src=$(module_dir "github.com/databus23/helm-diff/v3@$HELM_DIFF_VERSION" "$HELM_DIFF_SUM")
  rm -rf "$diff_dir" && mkdir -p "$diff_dir/diff/bin"
  GO_LDFLAGS="-X github.com/databus23/helm-diff/v3/cmd.Version=${HELM_DIFF_VERSION#v}" MODULE_SUM=$HELM_DIFF_SUM \
    go_build_module "github.com/databus23/helm-diff/v3@$HELM_DIFF_VERSION" "$diff_dir/diff/bin" diff=.
  cp "$diff_src/plugin.yaml" "$diff_dir/diff/plugin.yaml" && chmod u+w "$diff_dir/diff/plugin.yaml"
fi
# $cache/helm: Helm with that plugin directory, for every caller (the inventory's helm binary,
# Fluid's controllers' ddc-helm, the tests).
helm_run="$cache/helm-$HELM_VERSION-diff-$HELM_DIFF_VERSION"
if [ ! -x "$helm_run/helm" ]; then
  mkdir -p "$helm_run"
  printf '#!/bin/sh\n# Helm %s with the helm-diff plugin %s (tools/localcluster/build.sh).\nHELM_PLUGINS='"'"'%s'"'"' exec '"'"'%s'"'"' "$@"\n' \
    "$HELM_VERSION" "$HELM_DIFF_VERSION" "$diff_dir" "$helm_bin" > "$helm_run/helm.part"
  chmod +x "$helm_run/helm.part" && mv "$helm_run/helm.part" "$helm_run/helm"
fi
link "$helm_run/helm" "$cache/helm"

# Fluid's releases, each keyed by its version: FLUID_VERSION, and FLUID_PREVIOUS_VERSION (whose
# module is checked against FLUID_PREVIOUS_SUM). fluid_charts VERSION [SUM]: the charts and CRDs
# from the module into $cache/fluid-VERSION, the fluid chart packaged there, once.
fluid_charts() {
  local dir="$cache/fluid-$1" src
  [ ! -f "$dir/.complete-all-dependencies" ] || return 0
  log "fetching the Fluid $1 chart and CRDs from its Go module"
  src=$(module_dir "github.com/fluid-cloudnative/fluid@$1" "${2:-}")
  rm -rf "$dir" && mkdir -p "$dir"
  cp -r "$src/charts/." "$dir/charts" && chmod -R u+w "$dir"
  # Module zips drop symlinks: every chart with a file:// dependency (the engine charts, the
  # DataLoad/backup/migrate/process charts one level deeper) had charts/<name> linked to it.
  find "$dir/charts" -name Chart.yaml | while read -r chart_file; do
    chart=$(dirname "$chart_file")
    sed -n 's/^ *repository: *"\{0,1\}file:\/\/\([^"]*\)"\{0,1\} *$/\1/p' "$chart_file" | while read -r dependency; do
      mkdir -p "$chart/charts" && cp -r "$chart/$dependency" "$chart/charts/$(basename "$dependency")"
    done
  done
  "$helm_bin" package "$dir/charts/fluid/fluid" -d "$dir" >/dev/null
  touch "$dir/.complete-all-dependencies"
}
# fluid_programs VERSION SUM DIR NAME=PACKAGE...: those of the programs missing in DIR, built.
fluid_programs() {
  local version=$1 sum=$2 out=$3 target missing=(); shift 3
  for target in "$@"; do
    [ -x "$out/${target%%=*}" ] || missing+=("$target")
  done
  ((${#missing[@]})) || return 0
  log "building Fluid $version's ${missing[*]%%=*}: first run only, 2-7 min on 2 cores"
  mkdir -p "$out"
  MODULE_SUM=$sum go_build_module "github.com/fluid-cloudnative/fluid@$version" "$out" "${missing[@]}"
}
fluid_controllers=(dataset-controller=cmd/dataset alluxioruntime-controller=cmd/alluxio
  thinruntime-controller=cmd/thin fluidapp-controller=cmd/fluidapp)

if wants fluid; then
  fluid_charts "$FLUID_VERSION"
  link "$cache/fluid-$FLUID_VERSION" "$cache/fluid"
  fluid_programs "$FLUID_VERSION" "" "$cache/fluid-controllers-$FLUID_VERSION" "${fluid_controllers[@]}"
  link "$cache/fluid-controllers-$FLUID_VERSION" "$cache/fluid-controllers"
fi
# Its CSI plugin too (the pinned release's is node's): the upgrade test installs this release on the
# real nodes, from its chart and the images images.sh makes of these programs.
if wants fluid-previous; then
  fluid_charts "$FLUID_PREVIOUS_VERSION" "$FLUID_PREVIOUS_SUM"
  link "$cache/fluid-$FLUID_PREVIOUS_VERSION" "$cache/fluid-previous"
  fluid_programs "$FLUID_PREVIOUS_VERSION" "$FLUID_PREVIOUS_SUM" "$cache/fluid-controllers-$FLUID_PREVIOUS_VERSION" \
    "${fluid_controllers[@]}"
  fluid_programs "$FLUID_PREVIOUS_VERSION" "$FLUID_PREVIOUS_SUM" "$cache/fluid-csi-$FLUID_PREVIOUS_VERSION" fluid-csi=cmd/csi
fi

if wants mpijob; then
  mpi_dir="$cache/mpi-operator-$MPI_OPERATOR_VERSION"
  # Its manifests (kustomize: base, overlays) deploy it on real nodes; the CRD alone serves kwok's.
  if [ ! -f "$mpi_dir/manifests/base/kubeflow.org_mpijobs.yaml" ]; then
    log "fetching the MPIJob CRD and manifests from mpi-operator $MPI_OPERATOR_VERSION"
    src=$(module_dir "github.com/kubeflow/mpi-operator@$MPI_OPERATOR_VERSION")
    mkdir -p "$mpi_dir" && cp -r "$src/manifests" "$mpi_dir/manifests.$$" && chmod -R u+w "$mpi_dir/manifests.$$"
    cp "$mpi_dir/manifests.$$/base/kubeflow.org_mpijobs.yaml" "$mpi_dir/"
    rm -rf "$mpi_dir/manifests" && mv "$mpi_dir/manifests.$$" "$mpi_dir/manifests"
  fi
  if [ ! -x "$mpi_dir/mpi-operator" ]; then
    log "building mpi-operator $MPI_OPERATOR_VERSION's controller: first run only, about 3 min on 2 cores"
    go_build_module "github.com/kubeflow/mpi-operator@$MPI_OPERATOR_VERSION" "$mpi_dir" mpi-operator=cmd/mpi-operator
  fi
  link "$mpi_dir" "$cache/mpi-operator"
fi
# The one non-Go file this build takes through the Go module proxy, kept to this block. The
# standalone Alluxio chart (integration/kubernetes/helm-chart/alluxio) is published only as files
# of Alluxio's source tree and in Alluxio's Helm repository, which is not reachable here. No
# registry we can reach carries it: Alluxio's Maven artifacts are its Java modules (the pom of
# org.alluxio:alluxio-integration:2.9.3 lists fuse, jnifuse and tools, not kubernetes), and the
# jars do not bundle the chart. So the chart's files come from the source tree the proxy serves,
# and nothing else of Alluxio does: its jars come from Maven Central (tools/alluxio/fetch.sh).
# Users keep the choice of a repository, an archive or a directory (alluxio_chart_*).
if wants alluxio; then
  alluxio_dir="$cache/alluxio-$ALLUXIO_VERSION"
  if [ ! -f "$alluxio_dir/.complete" ]; then
    log "fetching the Alluxio $ALLUXIO_VERSION chart from its source module"
    # No go.mod at the root of Alluxio's tree: the proxy serves its tags as +incompatible.
    src=$(module_dir "github.com/Alluxio/alluxio@$ALLUXIO_VERSION+incompatible")
    rm -rf "$alluxio_dir" && mkdir -p "$alluxio_dir"
    cp -r "$src/integration/kubernetes/helm-chart/alluxio" "$alluxio_dir/alluxio" && chmod -R u+w "$alluxio_dir"
    "$helm_bin" package "$alluxio_dir/alluxio" -d "$alluxio_dir" >/dev/null
    touch "$alluxio_dir/.complete"
  fi
  link "$alluxio_dir" "$cache/alluxio"
fi
# A Go program go install can build, once per version, linked as $cache/NAME.
go_install() {  # go_install NAME VERSION PACKAGE
  local bin="$cache/$1-$2/$1"
  if [ ! -x "$bin" ]; then
    log "installing $1 $2: first run only"
    GOBIN="$(dirname "$bin")" timed go install -trimpath -ldflags "-s -w" "$3@$2"
  fi
  link "$bin" "$cache/$1"
}
if [[ " ${parts[*]} " == *" versitygw "* ]]; then
  go_install versitygw "$VERSITYGW_VERSION" github.com/versity/versitygw/cmd/versitygw
fi
if [[ " ${parts[*]} " == *" node "* ]]; then
  containerd_dir="$cache/containerd-$CONTAINERD_VERSION"
  if [ ! -x "$containerd_dir/containerd-shim-runc-v2" ]; then
    log "building containerd $CONTAINERD_VERSION: first run only, about 2 min on 2 cores"
    mkdir -p "$containerd_dir"
    # Its go.mod has exclude lines, which go install refuses; btrfs needs cgo and drops out.
    GO_LDFLAGS="-X github.com/containerd/containerd/version.Version=$CONTAINERD_VERSION" \
      go_build_module "github.com/containerd/containerd@$CONTAINERD_VERSION" "$containerd_dir" \
      containerd=cmd/containerd containerd-shim-runc-v2=cmd/containerd-shim-runc-v2 ctr=cmd/ctr
  fi
  go_install registry "$REGISTRY_VERSION" github.com/distribution/distribution/v3/cmd/registry
  # The hosts mount node-bin: real files, as links would point outside the container.
  node_key=$(sha256sum "$cache/kube" "$containerd_dir"/* | sha256sum | cut -c1-10)
  node_bin="$cache/node-bin-$node_key"
  if [ ! -x "$node_bin/kube" ]; then
    mkdir -p "$node_bin.part"
    cp -f "$(readlink -f "$cache/kube")" "$containerd_dir"/* "$node_bin.part/"
    rm -rf "$node_bin" && mv "$node_bin.part" "$node_bin"
  fi
  link "$node_bin" "$cache/node-bin"
  # Fluid's CSI plugin (its image: images/fluid-csi), beside its controllers.
  fluid_programs "$FLUID_VERSION" "" "$cache/fluid-csi-$FLUID_VERSION" fluid-csi=cmd/csi
  link "$cache/fluid-csi-$FLUID_VERSION" "$cache/fluid-csi"
fi
log "parts ready in $cache"
