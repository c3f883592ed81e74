"""Warm-up and cache status against the local cluster: Fluid's real dataset, DataLoad and
AlluxioRuntime controllers and a real Alluxio; the loader pod's script (Fluid's
alluxio_dataload.sh) runs the real `alluxio fs distributedLoad` from this machine
(tools/localcluster/simulator.py), over a local stand-in of the dataset's OSS bucket."""

import json
import re

import pytest
import yaml
from kubernetes import client

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


def test_site_warms_the_cache_to_the_threshold_and_shows_it_rising(api, site_run):
    returncode, output = site_run
    assert returncode == 0, output[-3000:]
    # Progress lines while the DataLoad runs, each with the dataset's cached percentage.
    seen = [float(p) for p in re.findall(r"DataLoad imagenet-warmup Executing, dataset imagenet ([0-9.]+)% cached", output)]
    # Rising while the loader runs. The script loads /imagenet/train, then /imagenet/validation, with
    # four CLI runs between them (ls, setReplication, ls -R, distributedLoad), so the progress
    # polled every 3 s shows the train part (32 of 36 MiB) before the whole.
    assert seen == sorted(seen) and len({p for p in seen if 0 < p < 100}) >= 1, output
    assert "imagenet: DataLoad Complete" in folded(output)
    assert float(dataset(api, "imagenet")["status"]["cacheStates"]["cachedPercentage"].rstrip("%")) >= 95


def test_site_trains_to_a_succeeded_mpijob_and_reads_its_simulated_log(api, site_run):
    returncode, output = site_run
    job = client.CustomObjectsApi(api).get_namespaced_custom_object(
        "kubeflow.org", "v2beta1", "default", "mpijobs", "horovod-resnet50-v2-4x8-fluid")
    assert {c["type"]: c["status"] for c in job["status"]["conditions"]}["Succeeded"] == "True"
    worker = job["spec"]["mpiReplicaSpecs"]["Worker"]
    assert worker["replicas"] == 4 and job["spec"]["slotsPerWorker"] == 8
    assert worker["template"]["spec"]["volumes"] == [{"name": "data", "persistentVolumeClaim": {"claimName": "imagenet"}}]
    env = {e["name"]: e["value"] for e in worker["template"]["spec"]["containers"][0]["env"]}
    assert env == {"DATA_DIR": "/data/imagenet", "num_batch": "1000", "datasets_num_private_threads": "8"}
    assert "MPIJob horovod-resnet50-v2-4x8-fluid Running" in output
    line = re.search(r"Succeeded in [0-9.]+ s; images/sec at step 1000: ([0-9.]+), at the last step 14000: ([0-9.]+) \(SIMULATED\)",
                     folded(output))
    assert line, output[-3000:]
    # Warm cache: the seeds' 4x8 job-wide figures, 20859.5 at step 1000 and 21329 at the end, summed
    # over the 32 ranks' lines, within the simulation's noise.
    assert 19500 < float(line.group(1)) < 22000 and 20000 < float(line.group(2)) < 22500


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
        # The real master's figures: the stand-in bucket (36 MiB), all of it cached, two 1Gi workers.
        assert re.search(r"imagenet\s+36\.00MiB\s+36\.00MiB\s+2\.00GiB\s+100\.0%\s+Bound", shown), shown
        # No fuse pod: Fluid starts one where the CSI plugin mounts the dataset, and no kubelet mounts here.
        assert re.search(r"imagenet\s+AlluxioRuntime\s+Ready 1/1\s+Ready 4/4\s+Ready 0/0", shown), shown
    assert text.read_text().startswith("namespace default:\nNAME ")
    datasets = {d["name"]: d for d in json.loads(report.read_text())["datasets"]}
    imagenet = datasets["imagenet"]
    assert (imagenet["phase"], imagenet["cached_percentage"], imagenet["runtime"]["worker"]["ready"]) == ("Bound", 100.0, 4)
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
                "create an AlluxioRuntime or JindoRuntime of the dataset's name") in folded(output)
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
