"""The runbooks the simulated cluster runs (runbook_shell.ON_SIMULATED_CLUSTER), with
inventory/local-simulated, whose dataset is on OSS with its keys in a Secret and whose baseline is
an NFS volume: every block marked runnable is run as the on-call engineer would paste it
(tests/runbook_shell.py), and must exit as the runbook says, its output holding the runbook's
`expect` lines. The deploy runbook makes the deployment, and the teardown runbook ends, leaving
no Fluid object, PV or PVC for the tests after it. The last test fails when
a runnable block of these runbooks was run by no test. Real: apiserver, Helm, Fluid's controllers,
a real Alluxio, the node hosts. Simulated: the kubelets (no CSI call, no FUSE pod, no container
runs), training. tests/nodes/test_runbooks.py runs every other runbook where pods really run."""

import os

import pytest
from kubernetes import client

from conftest import INVENTORY, wait_until
from playbook import REPO
from runbook_shell import ON_SIMULATED_CLUSTER, environment, not_run, run

FLUID = ("data.fluid.io", "v1alpha1")
# The index's variables, as the local cluster has them (docs/runbooks/README.md).
LOCAL = {"INVENTORY": os.path.relpath(INVENTORY, REPO), "NS": "default", "DATASET": "imagenet"}


@pytest.fixture(scope="module")
def shell(kubeconfig, tmp_path_factory):
    return environment(kubeconfig, tmp_path_factory.mktemp("tools"), **LOCAL)


@pytest.fixture(scope="module", autouse=True)
def only_the_deployment(api):
    """The objects the earlier tests made for themselves (datasets and volumes that are not the
    bundle's), deleted first: the runbooks' checks look at all."""
    custom, core = client.CustomObjectsApi(api), client.CoreV1Api(api)
    for plural in ("dataloads", "datasets", "alluxioruntimes", "jindoruntimes"):
        for item in custom.list_namespaced_custom_object(*FLUID, "default", plural)["items"]:
            if item["metadata"]["name"] not in ("imagenet", "imagenet-warmup"):
                custom.delete_namespaced_custom_object(*FLUID, "default", plural, item["metadata"]["name"])
    for volume in core.list_persistent_volume().items:
        if volume.metadata.name not in ("nfs-imagenet", "default-imagenet"):
            core.delete_persistent_volume(volume.metadata.name)
    wait_until(lambda: {item["metadata"]["name"] for item in custom.list_namespaced_custom_object(
        *FLUID, "default", "datasets")["items"]} <= {"imagenet"}, seconds=180)


def test_deploy(shell):
    run(shell, "deploy-reach")
    run(shell, "deploy-site")


def test_the_nfs_baseline_claim_is_bound_by_the_real_controller_manager(api):
    core = client.CoreV1Api(api)
    volume = core.read_persistent_volume("nfs-imagenet")
    assert volume.spec.mount_options == ["vers=3", "nolock", "proto=tcp", "rsize=1048576", "wsize=1048576", "hard",
                                         "timeo=600", "retrans=2", "noresvport", "nfsvers=4.1"]
    assert volume.spec.access_modes == ["ReadOnlyMany"] and volume.spec.capacity["storage"] == "150Gi"

    def bound_claim():
        claim = core.read_namespaced_persistent_volume_claim("nfs-imagenet", "default")
        return claim if claim.status.phase == "Bound" else None

    assert wait_until(bound_claim, seconds=30).spec.volume_name == "nfs-imagenet"


def test_teardown_leaves_no_fluid_object_pv_or_pvc_and_a_second_one_changes_nothing(shell, api):
    custom, core = client.CustomObjectsApi(api), client.CoreV1Api(api)
    run(shell, "teardown-preview")
    run(shell, "teardown-run")
    for plural in ("dataloads", "datasets", "alluxioruntimes", "jindoruntimes"):
        assert wait_until(lambda p=plural: custom.list_namespaced_custom_object(*FLUID, "default", p)["items"] == [] or None,
                          seconds=180) is True, plural
    assert custom.list_namespaced_custom_object("kubeflow.org", "v2beta1", "default", "mpijobs",
                                                label_selector="app.kubernetes.io/managed-by=fluidops")["items"] == []
    assert wait_until(lambda: not core.list_persistent_volume_claim_for_all_namespaces().items, seconds=120)
    assert wait_until(lambda: not core.list_persistent_volume().items, seconds=120)
    output = run(shell, "teardown-run")  # the runbook: a second run changes nothing (no task says changed)
    assert "changed: [" not in output, output[-3000:]
    run(shell, "teardown-check-objects")
    assert "fluid-1.0.8" not in run(shell, "teardown-check-release")


def test_every_runnable_block_of_the_runbooks_on_the_seeds_stores_was_run():
    # Run the whole file: a block added to one of these runbooks and run by no test fails here
    # (and, without a cluster, in tests/unit/test_runbooks.py when no test names it).
    assert not_run(lambda path: path in ON_SIMULATED_CLUSTER) == []
