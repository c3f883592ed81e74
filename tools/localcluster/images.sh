#!/usr/bin/env bash
# The images the real nodes run, built here (nothing is pulled from outside) and served by the
# local registry. Each image has a directory under images/ with its Containerfile; its build
# context is made by a prepare_<name> function below from this machine's own builds.
#   images.sh build [NAME...]     build into podman's storage, once per recipe (tag: version-key)
#   images.sh push REGISTRY       push every image to REGISTRY and write each one's reference,
#                                 pinned by digest, to $run/images/<name>; push it too under the
#                                 upstream references it stands for, as a site's mirror holds them
#   images.sh list                the images this cluster runs, one reference per line
#   images.sh upstream [NAME...]  each image's name and the upstream references push gives it
# Called by cluster.sh, with its CONTAINERS_CONF.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"
log_name='localcluster images'
# shellcheck source=../lib.sh  # log, die, module_dir, repo
. "$here/../lib.sh"
# shellcheck source=instance.sh  # cache, run
. "$here/instance.sh"
names=(pause coredns gpu-device-plugin csi-registrar alluxio fluid-csi fluid-controllers fluid-csi-previous
  fluid-controllers-previous mpi-operator training versitygw s3fs)

# Each image: its version (the start of its tag), the files of this repository it is made from
# (they key its tag with the recipe), and its recipe: images/<recipe> and prepare_<recipe> CONTEXT
# NAME, which puts them in the context. NAME-previous is NAME's program of Fluid's release before
# (FLUID_PREVIOUS_VERSION, which the upgrade test installs first), made by NAME's recipe.
recipe_of() { echo "${1%-previous}"; }
version_of() {
  case $1 in
    pause) echo "$PAUSE_VERSION" ;;
    coredns) echo "${COREDNS_VERSION#v}" ;;
    gpu-device-plugin | csi-registrar | training) echo 0.1.0 ;;
    # Fluid parses the runtime image's tag as a version: it must start with one.
    alluxio) echo 2.9.3 ;;
    fluid-csi | fluid-controllers) echo "${FLUID_VERSION#v}" ;;
    fluid-csi-previous | fluid-controllers-previous) echo "${FLUID_PREVIOUS_VERSION#v}" ;;
    mpi-operator) echo "${MPI_OPERATOR_VERSION#v}" ;;
    versitygw) echo "${VERSITYGW_VERSION#v}" ;;
    # Debian bookworm's s3fs-fuse.
    s3fs) echo 1.90 ;;
    *) die "no image named $1 (images: ${names[*]})" ;;
  esac
}

inputs_of() {
  case $1 in
    gpu-device-plugin | csi-registrar) echo "$here/agents" ;;
    alluxio) echo "$repo/tools/alluxio/jars.lock" "$repo/tools/alluxio/bin" "$repo/tools/alluxio/conf" ;;
    # Built from pinned modules (Kubernetes, CoreDNS, Fluid, Helm): a new pin is a new image.
    pause | coredns | fluid-csi* | fluid-controllers* | mpi-operator | versitygw) echo "$here/versions.env" ;;
  esac
}

prepare_pause() {  # build/pause/Makefile's flags
  local src; src=$(module_dir "k8s.io/kubernetes@$KUBE_VERSION")/build/pause/linux/pause.c
  gcc -Os -Wall -Werror -static -DVERSION="v$PAUSE_VERSION-fluidops" -o "$1/pause" "$src"
}
prepare_coredns() {
  GOBIN="$1" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION"
}
prepare_gpu-device-plugin() { build_agent gpu-device-plugin "$1"; }
prepare_csi-registrar() { build_agent csi-registrar "$1"; }
build_agent() {  # build_agent NAME CONTEXT: a static binary of agents/cmd/NAME
  (cd "$here/agents" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$2/$1" "./cmd/$1")
}
# The Fluid release of a Fluid image, and its module's pin (module_dir) where it has one.
fluid_release_of() {
  case $1 in
    *-previous) echo "$FLUID_PREVIOUS_VERSION $FLUID_PREVIOUS_SUM" ;;
    *) echo "$FLUID_VERSION" ;;
  esac
}
prepare_fluid-csi() {  # build.sh's CSI plugin of the image's Fluid (node, fluid-previous), the scripts from its module
  local version sum src
  read -r version sum <<< "$(fluid_release_of "$2")"
  src=$(module_dir "github.com/fluid-cloudnative/fluid@$version" "$sum")
  cp "$cache/fluid-csi-$version/fluid-csi" "$src"/csi/shell/*.sh "$1/"
  chmod 0755 "$1"/*
}
prepare_fluid-controllers() {  # build.sh's binaries and charts of the image's Fluid (fluid, fluid-previous), its Helm
  local version
  read -r version _ <<< "$(fluid_release_of "$2")"
  cp "$cache/fluid-controllers-$version/dataset-controller" "$cache/fluid-controllers-$version/alluxioruntime-controller" \
    "$cache/fluid-controllers-$version/thinruntime-controller" "$cache/fluid-controllers-$version/fluidapp-controller" "$1/"
  cp "$cache/helm-$HELM_VERSION/helm" "$1/ddc-helm"
  cp -r "$cache/fluid-$version/charts" "$1/charts"
}
prepare_training() { :; }  # its files are all beside its Containerfile
prepare_s3fs() { :; }
prepare_mpi-operator() { cp "$cache/mpi-operator/mpi-operator" "$1/"; }  # build.sh mpijob's binary
prepare_versitygw() { cp "$cache/versitygw-$VERSITYGW_VERSION/versitygw" "$1/"; }  # build.sh versitygw's binary
prepare_alluxio() {  # the jars from Maven Central, the project's alluxio command and log4j settings
  cp -r "$("$repo/tools/alluxio/fetch.sh")" "$1/jars" && rm -f "$1/jars/.complete"
  cp "$repo/tools/alluxio/bin/alluxio" "$repo/tools/alluxio/conf/log4j.properties" "$1/"
}

# The upstream images each one stands for: those the pinned charts deploy by default (Fluid's
# charts of both releases, as helm template renders their defaults; mpi-operator's standalone
# overlay), for Alluxio its own image of the release the jars are, for the training the seeds' job
# image, for s3fs the name inventory/local's ThinRuntime profile gives it. The local registry
# serves it under these paths too, laid out as a site's mirror is
# (plugins/module_utils/common/images.py, mirrored): the bundle's fluidops_image_registry finds
# there every image it deploys, as tests/nodes checks against playbooks/images.yml.
upstream_of() {
  case $1 in
    fluid-controllers*) fluid_chart_images "$1" '/(dataset|alluxioruntime|thinruntime|application)-controller:' ;;
    fluid-csi*) fluid_chart_images "$1" '/fluid-csi:' ;;
    # One registrar for both releases' charts.
    csi-registrar) fluid_chart_images fluid-csi '/csi-node-driver-registrar:' && fluid_chart_images fluid-csi-previous '/csi-node-driver-registrar:' ;;
    alluxio) echo "alluxio/alluxio:2.9.3" ;;
    mpi-operator) echo "mpioperator/mpi-operator:${MPI_OPERATOR_VERSION#v}" ;;
    training) echo "tensorflow-samples/horovod-benchmark-dawnbench-v2:0.18.1-tf1.14.0-torch1.2.0-mxnet1.5.0-py3.6" ;;
    s3fs) echo "fluidops/s3fs-fuse:$(version_of s3fs)" ;;
  esac
}
fluid_chart_images() {  # fluid_chart_images NAME REGEX: the images of the Fluid chart of NAME's release that match
  local version
  read -r version _ <<< "$(fluid_release_of "$1")"
  "$cache/helm-$HELM_VERSION/helm" template fluid "$cache/fluid-$version/charts/fluid/fluid" \
    | sed -n 's/^[ -]*image: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' | grep -E "$2" | sort -u \
    || die "no image matching $2 in Fluid $version's chart (is $cache/fluid-$version there? tools/localcluster/build.sh)"
}

# The tag: the version, then a key of the Containerfile, the files beside it, the inputs and the
# prepare function that makes the context.
image_tag() {
  local key
  key=$( (cd "$here/images/$(recipe_of "$1")" && find . -type f -print0 | sort -z | xargs -0 sha256sum
    # shellcheck disable=SC2046  # one word per input path
    [ -z "$(inputs_of "$1")" ] || find $(inputs_of "$1") -type f -print0 | sort -z | xargs -0 sha256sum | cut -c1-64
    declare -f "prepare_$(recipe_of "$1")"
    version_of "$1") | sha256sum | cut -c1-10)
  echo "localhost/fluidops/$1:$(version_of "$1")-$key"
}

build() {
  local name tag context
  for name in "$@"; do
    tag=$(image_tag "$name")
    podman image exists "$tag" && continue
    log "building the $name image ($tag)"
    context=$(mktemp -d "${TMPDIR:-/tmp}/fluidops-image.XXXXXX")
    cp -r "$here/images/$(recipe_of "$name")/." "$context/"
    "prepare_$(recipe_of "$name")" "$context" "$name"
    podman build --quiet --format oci --build-arg "BASE=$("$repo/tools/hostimage/build.sh" base)" \
      --file "$context/Containerfile" --tag "$tag" "$context" >/dev/null \
      || { rm -rf "$context"; die "the $name image did not build"; }
    rm -rf "$context"
    # The image's earlier recipes: their tags go, so the cache does not grow with every change.
    podman images --format '{{.Repository}}:{{.Tag}}' "localhost/fluidops/$name" | grep -vxF "$tag" \
      | xargs -r podman rmi --ignore >/dev/null 2>&1 || true
  done
}

push() {  # push REGISTRY: each image by its tag, then its reference pinned by the digest pushed
  local registry=$1 name tag remote digest upstreams upstream
  mkdir -p "$run/images"
  for name in "${names[@]}"; do
    tag=$(image_tag "$name")
    remote="$registry/fluidops/$name:${tag##*:}"
    podman push --quiet --tls-verify=false --format oci --digestfile "$run/images/.$name.digest" "$tag" "$remote" \
      || die "could not push $tag to $registry"
    digest=$(cat "$run/images/.$name.digest")
    echo "$remote@$digest" > "$run/images/$name"
    rm -f "$run/images/.$name.digest"
    upstreams=$(upstream_of "$name")
    for upstream in $upstreams; do
      podman push --quiet --tls-verify=false --format oci "$tag" "$registry/$upstream" || die "could not push $tag to $registry/$upstream"
    done
  done
}

case ${1:-} in
  build) shift; (($#)) || set -- "${names[@]}"; build "$@" ;;
  push) [ $# -eq 2 ] || die "usage: images.sh push REGISTRY"; push "$2" ;;
  list) for name in "${names[@]}"; do cat "$run/images/$name" 2>/dev/null || image_tag "$name"; done ;;
  upstream) shift; (($#)) || set -- "${names[@]}"
    for name in "$@"; do
      version_of "$name" >/dev/null
      upstreams=$(upstream_of "$name")
      echo "$name" "${upstreams//$'\n'/ }"
    done ;;
  *) echo "usage: $0 build [NAME...] | push REGISTRY | list | upstream [NAME...]" >&2; exit 2 ;;
esac
