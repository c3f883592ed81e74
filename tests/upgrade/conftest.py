"""Fluid upgraded from the release before (tests/fluid_previous.py: 1.0.0, the newest before 1.0.8
the Go module proxy serves) on a local cluster of real nodes of its own
(FLUIDOPS_CLUSTER_INSTANCE=3), which make test runs beside tests/nodes' (instance 1). The previous
release is deployed through the bundle with the local inventory's dataset, Bound and warmed; then
the upgrade runbook (docs/runbooks/upgrade-fluid.md) takes it to the pinned release, and the
dataset is checked through it. Every playbook run is read for warnings after the test that made it
(tests/run_warnings.py, autouse)."""

import hashlib
import os
import subprocess

import pytest
import yaml
from kubernetes import config

import cluster_script
from cluster_script import CLUSTER, REPO, wait_until
from fluid_previous import extra_vars
from playbook import PARTS, run_playbook
from pods import kubectl
from run_warnings import no_unlisted_warnings  # noqa: F401  pylint: disable=unused-import
from runbook_shell import environment

INSTANCE = int(os.environ.get("FLUIDOPS_CLUSTER_INSTANCE", "3"))
REAL = dict(os.environ, FLUIDOPS_NODES="real", FLUIDOPS_CLUSTER_INSTANCE=str(INSTANCE))
# Every playbook run of this process takes this cluster, as inventory/local follows the variable.
os.environ["FLUIDOPS_CLUSTER_INSTANCE"] = str(INSTANCE)
RUN = os.path.join(PARTS, "run-%d" % INSTANCE)
INVENTORY = os.path.join(REPO, "inventory", "local")
SETTINGS = os.path.join(INVENTORY, "group_vars", "all", "deployment.yml")
DATASET = "imagenet"


@pytest.fixture(scope="session")
def kubeconfig():
    subprocess.run([CLUSTER, "down"], capture_output=True, check=False, env=REAL)
    cluster_script.up(env=REAL)
    yield cluster_script.cluster("kubeconfig", env=REAL).stdout.strip()
    subprocess.run([CLUSTER, "down"], capture_output=True, check=False, env=REAL)


@pytest.fixture(scope="session")
def api(kubeconfig):  # pylint: disable=redefined-outer-name
    return config.new_client_from_config(config_file=kubeconfig)


@pytest.fixture(scope="session")
def shell(kubeconfig, tmp_path_factory):  # pylint: disable=redefined-outer-name
    """The runbooks' commands' environment, with the index's variables as this cluster has them."""
    return environment(kubeconfig, tmp_path_factory.mktemp("tools"), INVENTORY=os.path.relpath(INVENTORY, REPO), NS="default",
                       DATASET=DATASET)


@pytest.fixture(scope="session")
def previous(kubeconfig):  # pylint: disable=redefined-outer-name
    """The previous release deployed through the bundle, as a site running it has it: the nodes
    labelled, Fluid 1.0.0 from the local registry, the local inventory's cached dataset Bound and
    its cache warmed whole. Not by a DataLoad: 1.0.0's never completes on Kubernetes 1.31 and
    later, which list a Job's SuccessCriteriaMet condition ahead of Complete, and 1.0.0 reads only
    the first (pkg/controllers/v1alpha1/dataload/status_handler.go, Conditions[0]; 1.0.8 looks at
    each, kubeclient.GetFinishedJobCondition). Alluxio's own load, in the master, warms it as the
    DataLoad's loader does. The finished run."""
    with open(os.path.join(RUN, "registry"), encoding="ascii") as handle:
        registry = handle.read().strip()
    with open(SETTINGS, encoding="utf-8") as handle:
        dataset = next(item for item in yaml.safe_load(handle)["datasets_list"] if item["name"] == DATASET)
    done = run_playbook("playbooks/node_labels.yml", "playbooks/engine.yml", "playbooks/datasets.yml",
                        extra_vars=dict(extra_vars(registry), datasets_list=[dataset]))
    assert done.returncode == 0, done.output[-4000:]
    kubectl(kubeconfig, "exec", DATASET + "-master-0", "-c", "alluxio-master", "--", "alluxio", "fs", "load", "/" + DATASET)
    # 1.0.0 refreshes a Ready runtime's cache states every 90 s (its requeue, fixed).
    wait_until(lambda: kubectl(kubeconfig, "get", "dataset", DATASET, "-o", "jsonpath={.status.cacheStates.cachedPercentage}").stdout
               == "100.0%", 300, every=2, what="1.0.0 reading the warm cache")
    return done


@pytest.fixture(scope="session")
def images(kubeconfig):  # pylint: disable=unused-argument,redefined-outer-name  # written by cluster.sh up
    """Each image's reference as cluster.sh pushed it: registry/fluidops/name:tag@sha256:digest."""
    folder = os.path.join(RUN, "images")
    refs = {}
    for name in os.listdir(folder):
        if not name.startswith("."):
            with open(os.path.join(folder, name), encoding="ascii") as handle:
                refs[name] = handle.read().strip()
    return refs


def standin_sums():
    """{file: md5} of the training split of the dataset's under-store, which cluster.sh up wrote."""
    folder = os.path.join(RUN, "standins", DATASET, "train")
    sums = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as handle:
            sums[name] = hashlib.md5(handle.read()).hexdigest()
    return sums
