#!/usr/bin/env bash
# Writes the schemas the collection ships (plugins/plugin_utils/schemas: the kinds the bundle
# applies, for schema_check.py) from the pinned sources (sources.sh), with the transformation
# kubeconform's schemas get (schemas.py). `make schemas` runs it after a version changes; the
# render tests run it into another directory and fail if the shipped files differ.
#   ship.sh [OUT_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../localcluster/versions.env
. "$repo/tools/localcluster/versions.env"
out=${1:-$repo/plugins/plugin_utils/schemas}
python=${PYTHON:-python3}

listed=$("$here/sources.sh")
mapfile -t sources <<<"$listed"
mkdir -p "$out"
"$python" "$here/schemas.py" collection "$out" --version "kubernetes=$KUBE_VERSION" --version "fluid=$FLUID_VERSION" \
  --version "mpi-operator=$MPI_OPERATOR_VERSION" --version "prometheus-operator=$PROMETHEUS_OPERATOR_VERSION" "${sources[@]}"
