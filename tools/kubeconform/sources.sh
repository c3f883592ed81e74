#!/usr/bin/env bash
# Prints the pinned sources of the schemas, one path a line: the OpenAPI document of
# k8s.io/kubernetes@$KUBE_VERSION (from the Go module cache), then the CRDs of Fluid
# $FLUID_VERSION and of mpi-operator $MPI_OPERATOR_VERSION, which come with the local cluster's
# parts (tools/localcluster/build.sh fetches them once), and the ServiceMonitor CRD of
# prometheus-operator $PROMETHEUS_OPERATOR_VERSION (from the Go module cache). Versions:
# tools/localcluster/versions.env. No two lines share a file name: tests pick a CRD to install by
# its name (tests/cluster_script.py pinned_source).
# tools/kubeconform/setup.sh (kubeconform's schemas) and ship.sh (the collection's) both read them here.
set -euo pipefail
# shellcheck source=../lib.sh  # module_dir, repo, cache_root
. "$(dirname "$0")/../lib.sh"
# shellcheck source=../localcluster/versions.env
. "$repo/tools/localcluster/versions.env"

"$repo/tools/localcluster/build.sh" fluid mpijob
kube=$(module_dir "k8s.io/kubernetes@$KUBE_VERSION")
prometheus_operator=$(module_dir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION")
parts="$cache_root/localcluster"
printf '%s\n' "$kube/api/openapi-spec/swagger.json" "$parts"/fluid/charts/fluid/fluid/crds/*.yaml "$parts/mpi-operator/kubeflow.org_mpijobs.yaml" \
  "$prometheus_operator/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"
