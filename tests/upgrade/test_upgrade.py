"""Fluid 1.0.0, deployed through the bundle with a dataset Bound and warm, upgraded to the pinned
1.0.8 by the upgrade runbook: the CRDs first, then the chart; the dataset stays Bound, its cache
stays warm, the runtime's pods (the master, the worker, the FUSE pods) run on untouched, as Fluid
1.0.8 applies nothing but replicas to a running runtime, and a pod reads the data through the new
CSI plugin and the old FUSE."""

import json

from cluster_script import wait_until
from conftest import DATASET, standin_sums
from playbook import LOCAL_CHARTS
from pods import READ, finished, kubectl, pod, read_sums, running_pod
from runbook_shell import BLOCKS, RAN, run

PREVIOUS, PINNED = "v1.0.0-31f5433", "v1.0.8-6533239"
# A field 1.0.8's AlluxioRuntime CRD has and 1.0.0's has not (the research notes: the CRD changes).
NEW_FIELD = "imagePullSecrets"


def field(kubeconfig, kind, name, path, namespace="default"):
    return kubectl(kubeconfig, "get", kind, name, "-n", namespace, "-o", "jsonpath={%s}" % path, check=False).stdout


def controller_image(kubeconfig):
    return field(kubeconfig, "deployment", "dataset-controller", ".spec.template.spec.containers[0].image", "fluid-system")


def runtime_pods(kubeconfig):
    """{pod name: uid} of the runtime's master, worker and FUSE pods."""
    found = json.loads(kubectl(kubeconfig, "get", "pods", "-l", "release=" + DATASET, "-o", "json").stdout)["items"]
    return {item["metadata"]["name"]: item["metadata"]["uid"] for item in found}


def test_the_previous_release_serves_the_dataset_bound_and_warm(kubeconfig, previous, shell):  # pylint: disable=unused-argument
    assert "deployed fluid-1.0.0" in " ".join(run(shell, "upgrade-now").split())
    assert controller_image(kubeconfig).endswith(PREVIOUS)
    assert field(kubeconfig, "dataset", DATASET, ".status.phase") == "Bound"
    assert field(kubeconfig, "dataset", DATASET, ".status.cacheStates.cachedPercentage") == "100.0%"
    assert NEW_FIELD not in field(kubeconfig, "crd", "alluxioruntimes.data.fluid.io", ".spec.versions[0].schema.openAPIV3Schema.properties.spec")


def test_the_upgrade_runbook_applies_the_crds_first_then_the_chart(kubeconfig, previous, shell):  # pylint: disable=unused-argument
    before = runtime_pods(kubeconfig)
    upgrade = dict(shell, FLUID_CHART=LOCAL_CHARTS["fluid_chart_ref"])
    assert NEW_FIELD in run(upgrade, "upgrade-crd-diff")
    run(upgrade, "upgrade-preview")
    output = run(upgrade, "upgrade-apply")
    assert output.index("Apply the chart's CRDs server-side") < output.index("Install or upgrade the release and wait"), output[-4000:]
    run(upgrade, "upgrade-crds-current")
    run(upgrade, "upgrade-controllers")
    assert controller_image(kubeconfig).endswith(PINNED)
    assert NEW_FIELD in field(kubeconfig, "crd", "alluxioruntimes.data.fluid.io", ".spec.versions[0].schema.openAPIV3Schema.properties.spec")
    # Nothing of the runtime was restarted by the upgrade.
    assert runtime_pods(kubeconfig) == before


def test_the_dataset_stays_bound_and_warm_and_is_read_through_the_new_csi_plugin(kubeconfig, previous, images):  # pylint: disable=unused-argument
    # 1.0.8's controller marks the objects an older one made with the dataset's id
    # (controllers/runtime_controller.go, PatchLabelToObjects): it has taken the runtime over.
    wait_until(lambda: field(kubeconfig, "dataset", DATASET, ".metadata.labels.fluid\\.io/dataset-id"), 300, every=2,
               what="1.0.8's controller taking the dataset over")
    assert field(kubeconfig, "dataset", DATASET, ".status.phase") == "Bound"
    wait_until(lambda: field(kubeconfig, "dataset", DATASET, ".status.cacheStates.cachedPercentage") == "100.0%", 120, every=2,
               what="the cache still whole by 1.0.8's reading of the master")
    name = "upgraded-reader"
    with running_pod(kubeconfig, pod(name, images["alluxio"], READ, volumes=[("data", DATASET)])):
        assert read_sums(finished(kubeconfig, name)) == standin_sums()


def test_every_runnable_block_of_the_upgrade_runbook_was_run():
    assert sorted(block.where for block in BLOCKS.values() if block.file.endswith("upgrade-fluid.md") and block.id not in RAN) == []
