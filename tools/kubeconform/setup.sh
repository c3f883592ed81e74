#!/usr/bin/env bash
# Installs kubeconform and writes its schemas offline (Kubernetes built-ins of the local
# cluster's version, Fluid's, the MPIJob's and the ServiceMonitor's CRDs), cached by version.
# Prints two lines for the caller: the kubeconform binary and the schema location template.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log_name=kubeconform
# shellcheck source=../lib.sh  # log, repo, cache_root
. "$here/../lib.sh"
KUBECONFORM_VERSION=${KUBECONFORM_VERSION:-v0.7.0}
# shellcheck source=../localcluster/versions.env
. "$repo/tools/localcluster/versions.env"
python=${PYTHON:-python3}

bin="$cache_root/kubeconform-$KUBECONFORM_VERSION/kubeconform"
if [ ! -x "$bin" ]; then
  log "installing kubeconform $KUBECONFORM_VERSION"
  GOBIN="$(dirname "$bin")" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w -X main.version=$KUBECONFORM_VERSION" \
    "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
fi

# The render tests use the local cluster's parts (Helm, the charts; cached, fetched once).
"$repo/tools/localcluster/build.sh"
# The swagger and the CRDs, found as for the schemas the collection ships (ship.sh).
listed=$("$here/sources.sh")
mapfile -t sources <<<"$listed"
key=$(cat "$here/schemas.py" "${sources[@]}" | sha256sum | cut -c1-10)
schemas="$cache_root/kubeconform-schemas-$KUBE_VERSION-$key"
if [ ! -f "$schemas/.complete" ]; then
  rm -rf "$schemas"
  "$python" "$here/schemas.py" kubeconform "$schemas" "${sources[@]}" >&2
  touch "$schemas/.complete"
fi
echo "$bin"
echo "$schemas/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json"
