"""Warm-up and cache status against the local cluster's real nodes: Fluid's real dataset,
DataLoad and AlluxioRuntime controllers, the runtime's Alluxio in pods, and the DataLoad's loader
pod running Fluid's alluxio_dataload.sh with the real `alluxio fs distributedLoad`, over the
stand-in of ImageNet the local inventory's dataset reads. The training's run on it is
test_real_nodes.py's."""

import json
import re

import pytest
import yaml
from kubernetes import client

from conftest import standin_files
from playbook import folded, run_playbook


def play(tmp_path, tasks, check=False):
    """Runs tasks on localhost with the local inventory's kubeconfig; (return code, output), with its events."""
    path = tmp_path / "play.yml"
    path.write_text(yaml.safe_dump([{"name": "Try a module", "hosts": "localhost", "gather_facts": False,
                                     "module_defaults": {"group/fluidops.accel.fluidops": {"kubeconfig": "{{ fluidops_kubeconfig }}"}},
                                     "tasks": tasks}]))
    return run_playbook(str(path), check=check)


def dataset(api, name):
    return client.CustomObjectsApi(api).get_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", name)


def test_site_warms_the_cache_to_the_threshold_and_shows_its_progress(api, site_run):
    assert site_run.returncode == 0, site_run.output[-3000:]
    output = site_run.output
    # Progress lines while the DataLoad runs, each with the dataset's cached percentage. Fluid looks
    # at the loader's Job every 20 s, so there is one at least; how far along each is depends on the
    # machine (the loader fills 9 MiB in seconds). The figures need not rise: Alluxio counts the room
    # a worker holds for blocks still being written as used (144.4 % was seen mid-load, then 100.0 %).
    seen = re.findall(r"DataLoad imagenet-warmup \S+, dataset imagenet ([0-9.]+)% cached", output)
    assert seen, output
    assert "imagenet: DataLoad Complete" in folded(output)
    assert float(dataset(api, "imagenet")["status"]["cacheStates"]["cachedPercentage"].rstrip("%")) == 100


def test_site_lists_the_warmed_dataset_through_its_claim_on_every_gpu_node(api, site_run):
    """The warm-up's listing: a pod on each of the four nodes (all GPU nodes here) ran the FUSE
    pods' Alluxio image, read the whole claim through that node's real FUSE mount and found every
    file of the stand-in; the Dataset records it, and no Job or pod of it is left."""
    assert site_run.returncode == 0, site_run.output[-3000:]
    files = len(standin_files("train")) + len(standin_files("validation"))
    found = re.search(r"imagenet: listed on (\d+) nodes in [0-9.]+ s; files found: ([\w.-]+ \d+(?:, [\w.-]+ \d+)*)", folded(site_run.output))
    assert found, site_run.output[-3000:]
    nodes = sorted(node.metadata.name for node in client.CoreV1Api(api).list_node().items)
    assert int(found.group(1)) == len(nodes) == 4
    assert found.group(2) == ", ".join("%s %d" % (node, files) for node in nodes)
    record = json.loads(dataset(api, "imagenet")["metadata"]["annotations"]["fluidops.io/listed"])
    assert record["nodes"] == nodes
    assert not client.BatchV1Api(api).list_namespaced_job("default", label_selector="fluidops.io/listing").items
    assert not client.CoreV1Api(api).list_namespaced_pod("default", label_selector="fluidops.io/listing").items


@pytest.fixture
def no_runtime(api):
    """A dataset no runtime serves, which never binds."""
    client.CustomObjectsApi(api).create_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": {"name": "no-runtime"},
        "spec": {"mounts": [{"mountPoint": "oss://imagenet/data/", "name": "no-runtime"}]}})
    yield "no-runtime"
    client.CustomObjectsApi(api).delete_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", "no-runtime")


def test_status_prints_the_table_and_writes_json_and_text(api, no_runtime, tmp_path):
    report, text = tmp_path / "status.json", tmp_path / "status.txt"
    returncode, output = run_playbook("playbooks/status.yml", extra_vars={
        "cache_status_json_path": str(report), "cache_status_table_path": str(text)})
    assert returncode == 0, output[-3000:]
    # The same tables in the output and in the text file (make demo ends with it).
    for shown in (output, text.read_text()):
        # The real master's figures: the stand-in (9 MiB), all of it cached, one worker's 32Mi tier.
        assert re.search(r"imagenet\s+9\.00MiB\s+9\.00MiB\s+32\.00MiB\s+100\.0%\s+Bound", shown), shown
        # A FUSE pod on each node where a pod has the claim mounted, if any (the training's have ended).
        assert re.search(r"imagenet\s+AlluxioRuntime\s+Ready 1/1\s+Ready 1/1\s+\S+ (\d+)/\1", shown), shown
    assert text.read_text().startswith("namespace default:\nNAME ")
    datasets = {d["name"]: d for d in json.loads(report.read_text())["datasets"]}
    imagenet = datasets["imagenet"]
    assert (imagenet["phase"], imagenet["cached_percentage"], imagenet["runtime"]["worker"]["ready"]) == ("Bound", 100.0, 1)
    # The gate names the dataset that is not Bound.
    assert datasets[no_runtime]["phase"] == "NotBound"
    returncode, output = run_playbook("playbooks/status.yml", extra_vars={"cache_status_require_bound": True})
    assert returncode != 0 and "Not Bound: no-runtime" in output


def test_a_dataset_that_never_binds_times_out_with_the_reason(api, tmp_path):
    client.CustomObjectsApi(api).create_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": {"name": "orphan"},
        "spec": {"mounts": [{"mountPoint": "pvc://nfs-imagenet", "name": "nfs"}]}})
    try:
        returncode, output = play(tmp_path, [{"fluidops.accel.fluid_dataset_info": {"name": ["orphan"], "wait": True, "wait_timeout": 5}}])
        assert returncode != 0
        assert ("Timed out after 5s waiting for phase Bound: orphan: phase NotBound; no runtime named orphan in default: "
                "create an AlluxioRuntime, JindoRuntime or ThinRuntime of the dataset's name") in folded(output)
        calls = int(re.search(r"api_calls: ([0-9]+)", output).group(1))
        assert calls <= 8, output  # one list, one watch, then the reads for the reason
    finally:
        client.CustomObjectsApi(api).delete_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", "orphan")


def test_an_unknown_dataset_is_a_clear_error(api, tmp_path):
    returncode, output = play(tmp_path, [{"fluidops.accel.fluid_dataload": {"name": "coco-warmup", "dataset": "coco"}}])
    assert returncode != 0
    assert re.search(r"Dataset coco not found in namespace default \(datasets there: [a-z, -]*imagenet", folded(output)), output
    returncode, output = play(tmp_path, [{"fluidops.accel.fluid_dataset_info": {"name": ["coco"]}}])
    assert returncode != 0
    assert re.search(r"Dataset coco not found in namespace default \(datasets there: [a-z, -]*imagenet", folded(output)), output


def test_check_mode_warmup_creates_nothing(api, tmp_path):
    run = play(tmp_path, [{"fluidops.accel.fluid_dataload": {"name": "imagenet-again", "dataset": "imagenet"}}], check=True)
    assert run.returncode == 0, run.output[-3000:]
    assert run.changed_per_host()["localhost"] == 1
    loads = client.CustomObjectsApi(api).list_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "dataloads")["items"]
    assert "imagenet-again" not in [d["metadata"]["name"] for d in loads]


def test_a_dataload_that_never_completes_stops_the_warmup_at_the_users_timeout_with_its_state(api, tmp_path):
    # Fault: a DataLoad of a dataset that never binds (no runtime) stays pending. The warm-up's
    # action plugin waits in slices of warmup_progress_interval; the failure names the whole wait.
    objects = client.CustomObjectsApi(api)
    objects.create_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": {"name": "stuck"},
        "spec": {"mounts": [{"mountPoint": "pvc://nfs-imagenet", "name": "nfs"}]}})
    try:
        returncode, output = run_playbook("playbooks/warmup.yml", extra_vars={
            "warmup_datasets": [{"name": "stuck", "namespace": "default", "warmup": {}}], "warmup_timeout": 7,
            "warmup_progress_interval": 2})
        assert returncode != 0
        text = folded(output)
        assert re.search(r"Timed out after 7s: DataLoad default/stuck-warmup is (Pending|without a phase), dataset stuck "
                         r"\S+% cached", text), output[-3000:]
        assert "Timed out after 1s" not in text and "Timed out after 2s" not in text, [
            line for line in output.splitlines() if "Timed out after" in line]
        assert "DataLoad stuck-warmup" in text  # a progress line between slices
    finally:
        for plural, name in (("dataloads", "stuck-warmup"), ("datasets", "stuck")):
            try:
                objects.delete_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", plural, name)
            except client.exceptions.ApiException as error:
                if error.status != 404:
                    raise
