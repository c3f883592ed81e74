#!/usr/bin/env bash
# Prints the pinned sources of the schemas, one path a line: the OpenAPI document of
# k8s.io/kubernetes@$KUBE_VERSION (from the Go module cache), then the CRDs of Fluid
# $FLUID_VERSION and of mpi-operator $MPI_OPERATOR_VERSION, which come with the local cluster's
# parts (tools/localcluster/build.sh fetches them once). Versions: tools/localcluster/versions.env.
# tools/kubeconform/setup.sh (kubeconform's schemas) and ship.sh (the collection's) both read them here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=../localcluster/versions.env
. "$repo/tools/localcluster/versions.env"
cache=${FLUIDOPS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fluidops}

"$repo/tools/localcluster/build.sh" fluid mpijob
kube=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | python3 -c 'import json, sys; print(json.load(sys.stdin)["Dir"])')
parts="$cache/localcluster"
printf '%s\n' "$kube/api/openapi-spec/swagger.json" "$parts"/fluid/charts/fluid/fluid/crds/*.yaml "$parts/mpi-operator/kubeflow.org_mpijobs.yaml"
