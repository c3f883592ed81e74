"""A cluster whose MPIJob kind is Arena's: the simulated cluster's CRD mpijobs.kubeflow.org is
replaced, for this file, by one that serves kubeflow.org/v1alpha1 only, as Arena's operator
installs it (arena's charts/mpijob makes v1alpha1 MPIJobs), and put back after. The real API
server answers preflight's question and the teardown's search; Arena's CLI is not built here, so
the teardown's `arena delete` is checked by the command it runs, which fails for want of the CLI."""

import json
import os
import subprocess

import pytest

from conftest import CACHE, wait_until
from playbook import run_playbook

KUBECTL = os.path.join(CACHE, "kubectl")
CRD = "mpijobs.kubeflow.org"
# The v1alpha1 kind as Arena's operator serves it; its schema is not this test's matter.
ARENA_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: mpijobs.kubeflow.org}
spec:
  group: kubeflow.org
  scope: Namespaced
  names: {kind: MPIJob, plural: mpijobs, singular: mpijob, listKind: MPIJobList}
  versions:
    - name: v1alpha1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
"""
# A job as `arena submit mpi --label app.kubernetes.io/managed-by=fluidops` leaves it.
ARENA_JOB = """
apiVersion: kubeflow.org/v1alpha1
kind: MPIJob
metadata:
  name: horovod-resnet50-v2-4x8-fluid
  namespace: default
  labels: {app: mpijob, release: horovod-resnet50-v2-4x8-fluid, app.kubernetes.io/managed-by: fluidops}
spec: {replicas: 4}
"""


def kubectl(kubeconfig, *args, stdin=None):
    done = subprocess.run([KUBECTL, "--kubeconfig", kubeconfig, *args], input=stdin, capture_output=True, text=True, check=False)
    assert done.returncode == 0, "kubectl %s: %s" % (" ".join(args), done.stderr)
    return done.stdout


def replace_crd(kubeconfig, path=None, text=None):
    """The CRD mpijobs.kubeflow.org deleted, then the one of the file at ``path`` or of ``text``,
    applied as cluster.sh up applies it (server-side: mpi-operator's is too large for the
    annotation a client-side apply writes)."""
    kubectl(kubeconfig, "delete", "crd", CRD, "--ignore-not-found", "--wait=true")
    kubectl(kubeconfig, "apply", "--server-side", "--force-conflicts", "-f", path or "-", stdin=text)
    # Polled: kubectl wait (and jsonpath) fail at once on a CRD whose status has no conditions yet.
    wait_until(lambda: established(kubeconfig), what="the CRD %s Established" % CRD)


def established(kubeconfig):
    status = json.loads(kubectl(kubeconfig, "get", "crd", CRD, "-o", "json")).get("status") or {}
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in status.get("conditions") or [])


@pytest.fixture(scope="module")
def arena_kind(kubeconfig):
    replace_crd(kubeconfig, text=ARENA_CRD)
    yield
    # mpi-operator's own CRD back, as cluster.sh up applies it.
    replace_crd(kubeconfig, path=os.path.join(CACHE, "mpi-operator", "kubeflow.org_mpijobs.yaml"))


def test_preflight_stops_on_a_cluster_whose_mpijob_kind_is_arena_s(kubeconfig, arena_kind):  # pylint: disable=unused-argument
    run = run_playbook("playbooks/preflight.yml")
    assert run.returncode != 0
    assert ("training_launcher=mpijob creates a kubeflow.org/v2beta1 MPIJob, which mpi-operator serves, but the cluster does "
            "not serve it: its CustomResourceDefinition mpijobs.kubeflow.org serves v1alpha1 (Arena's MPIJob operator). "
            "Install mpi-operator (v0.7.0: its manifests/overlays/standalone) in its place; or set training_launcher=arena: "
            "the cluster runs Arena's operator") in run.output, run.output[-3000:]
    # The question came last: the inventory's and the nodes' checks had passed.
    assert run.plays()[-1] == "Check what the cluster must already serve"


def test_the_teardown_asks_arena_to_delete_the_jobs_it_submitted_for_the_bundle(kubeconfig, arena_kind):  # pylint: disable=unused-argument
    kubectl(kubeconfig, "apply", "-f", "-", stdin=ARENA_JOB)
    missing = "/nonexistent/arena"
    run = run_playbook("playbooks/teardown.yml", extra_vars={"teardown_arena_binary": missing})
    assert run.returncode != 0
    [result] = run.results(task="Delete Arena's training jobs with its CLI")
    [item] = result["res"]["results"]
    command = item["cmd"] if isinstance(item["cmd"], str) else " ".join(item["cmd"])
    assert result["status"] == "failed" and command == missing + " delete --namespace default horovod-resnet50-v2-4x8-fluid", item
    # Nothing after it ran: the datasets and the release are as they were.
    assert "Delete each dataset and NFS baseline with what it owns" not in run.output
