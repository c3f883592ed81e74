"""The runbooks the simulated cluster runs (runbook_shell.ON_SIMULATED_CLUSTER), with
inventory/local-simulated, whose dataset is on OSS with its keys in a Secret and whose baseline is
an NFS volume: every block marked runnable is run as the on-call engineer would paste it
(tests/runbook_shell.py), and must exit as the runbook says, its output holding the runbook's
`expect` lines. The deploy runbook makes the deployment, the benchmark runbook makes the dataset
again (with its OSS keys inline, at -vvv: no key in the output or the reports), and the teardown
runbook ends, leaving no Fluid object, PV or PVC for the tests after it. The last test fails when
a runnable block of these runbooks was run by no test. Real: apiserver, Helm, Fluid's controllers,
a real Alluxio, the node hosts. Simulated: the kubelets (no CSI call, no FUSE pod, no container
runs), training. tests/nodes/test_runbooks.py runs every other runbook where pods really run."""

import json
import os
import re
import shutil

import pytest
import yaml
from kubernetes import client

from conftest import INVENTORY, SETTINGS, wait_until
from keys import INLINE, leaks
from playbook import REPO
from runbook_shell import ON_SIMULATED_CLUSTER, environment, not_run, run

FLUID = ("data.fluid.io", "v1alpha1")
# The index's variables, as the local cluster has them (docs/runbooks/README.md).
LOCAL = {"INVENTORY": os.path.relpath(INVENTORY, REPO), "NS": "default", "DATASET": "imagenet"}


def local_datasets_with_inline_keys():
    """The local inventory's datasets_list with imagenet's keys inline in its mount instead of in
    its Secret (allow_inline_credentials)."""
    with open(os.path.join(INVENTORY, SETTINGS), encoding="utf-8") as handle:
        datasets = yaml.safe_load(handle)["datasets_list"]
    mount = datasets[0]["mounts"][0]
    del mount["oss_secret"]
    mount.update(allow_inline_credentials=True, options=dict(mount["options"], **INLINE))
    return datasets


@pytest.fixture(scope="module")
def shell(kubeconfig, tmp_path_factory):
    return environment(kubeconfig, tmp_path_factory.mktemp("tools"), **LOCAL)


def inventory_copy(tmp_path, change):
    """The simulated cluster's inventory as a copy whose deployment settings ``change`` edited, as
    an operator edits theirs; the path, for INVENTORY."""
    target = tmp_path / "inventory"
    shutil.copytree(INVENTORY, target)
    settings = target / SETTINGS
    data = yaml.safe_load(settings.read_text())
    change(data)
    settings.write_text(yaml.safe_dump(data, sort_keys=False))
    return str(target)


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


def test_the_benchmark_with_the_keys_inline_at_vvv(shell, api, tmp_path):
    # The benchmark makes the dataset again: here from an inventory whose keys are inline in the
    # Dataset (allow_inline_credentials), at -vvv. They reach the cluster, and neither the output
    # nor a report (keys.py).
    reports = tmp_path / "reports"
    bench = dict(shell, REPORTS=str(reports), ANSIBLE_VERBOSITY="3", INVENTORY=inventory_copy(
        tmp_path, lambda data: data.update(datasets_list=local_datasets_with_inline_keys(), training_progress_interval=2)))
    output = run(bench, "benchmark-run")
    made = client.CustomObjectsApi(api).get_namespaced_custom_object(*FLUID, "default", "datasets", "imagenet")
    assert made["spec"]["mounts"][0]["options"]["fs.oss.accessKeyId"] == INLINE["fs.oss.accessKeyId"]
    assert leaks(output) == []
    assert {path.name: leaks(path.read_bytes().decode("latin-1")) for path in reports.iterdir()
            if leaks(path.read_bytes().decode("latin-1"))} == {}
    assert "SIMULATED" in run(bench, "benchmark-report")
    output = run(bench, "benchmark-compare")
    speed = {label: float(value) for label, value in re.findall(r"^(nfs|fluid \(cold\)|fluid \(warm\)) Succeeded ([0-9.]+)$",
                                                                output, flags=re.M)}
    # Seed 003's 4 x 8 order: NFS ~3136 < cold ~8890 < warm ~20860 images/sec at step 1000.
    assert speed["nfs"] < speed["fluid (cold)"] < speed["fluid (warm)"], output
    name = reports / "horovod-resnet50-v2-4x8"
    markdown = name.with_suffix(".md").read_text()
    for row in ("Training time", "Speed at the 1000 step(images/second)", "Speed at the last step(images/second)", "steps",
                "Accuracy @ 5"):
        assert "| %s |" % row in markdown
    report = json.loads(name.with_suffix(".json").read_text())
    runs = {entry["label"]: entry for entry in report["runs"]}
    assert list(runs) == ["nfs", "fluid (cold)", "fluid (warm)"] and report["simulated"]
    assert runs["nfs"]["data_dir"] == "/data/imagenet" and runs["nfs"]["claim"] == "nfs-imagenet"
    png = name.with_suffix(".png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


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
