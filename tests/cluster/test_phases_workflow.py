"""benchmark.yml and teardown.yml against the local cluster, after site.yml: the training runs on
simulated kubelets with simulated tf_cnn_benchmarks logs (the report says SIMULATED). The
benchmark makes the dataset again with its OSS keys inline, at -vvv: no key in its output, its
run's artifacts or reports (keys.py)."""

import json
import os
import subprocess

from kubernetes import client
from kubernetes.client.rest import ApiException

from conftest import CACHE, wait_until
from keys import INLINE, leaks, leaks_in_run, local_datasets_with_inline_keys
from playbook import folded, run_playbook

FLUID = ("data.fluid.io", "v1alpha1")


def test_benchmark_writes_the_three_reports_and_no_inline_key_at_vvv(api, tmp_path, tmp_path_factory):
    # Apart from the reports (tmp_path): the keys in a vars file, as a site would keep them (extra
    # vars given inline are in the run's command artifact), and the run's private data directory.
    work = tmp_path_factory.mktemp("benchmark-run")
    inline = work / "inline.json"
    inline.write_text(json.dumps({"datasets_list": local_datasets_with_inline_keys()}))
    returncode, output = run_playbook("playbooks/benchmark.yml", extra_vars={
        "benchmark_report_dir": str(tmp_path), "training_progress_interval": 2}, extra_files=[str(inline)], verbosity=3,
        data_dir=work / "run")
    assert returncode == 0, output[-3000:]
    # The benchmark made the dataset again with the keys inline: they reached the cluster, and
    # neither the output, the run's artifacts nor a report.
    made = client.CustomObjectsApi(api).get_namespaced_custom_object(*FLUID, "default", "datasets", "imagenet")
    assert made["spec"]["mounts"][0]["options"]["fs.oss.accessKeyId"] == INLINE["fs.oss.accessKeyId"]
    assert leaks(output) == []
    assert leaks_in_run(work / "run") == {}
    assert {path.name: leaks(path.read_bytes().decode("latin-1")) for path in tmp_path.iterdir()
            if leaks(path.read_bytes().decode("latin-1"))} == {}
    name = tmp_path / "horovod-resnet50-v2-4x8"
    markdown = name.with_suffix(".md").read_text()
    assert "SIMULATED" in markdown
    assert "| | nfs | fluid (cold) | fluid (warm) |" in markdown
    for row in ("Training time", "Speed at the 1000 step(images/second)", "Speed at the last step(images/second)", "steps",
                "Accuracy @ 5"):
        assert "| %s |" % row in markdown
    report = json.loads(name.with_suffix(".json").read_text())
    runs = {run["label"]: run for run in report["runs"]}
    assert list(runs) == ["nfs", "fluid (cold)", "fluid (warm)"] and report["simulated"]
    speed = {label: run["throughput"]["images_per_sec_at_step"] for label, run in runs.items()}
    # The seeds' 4x8 order: NFS ~3136 < cold ~8890 < warm ~20860 images/sec at step 1000.
    assert speed["nfs"] < speed["fluid (cold)"] < speed["fluid (warm)"], speed
    assert [run["state"] for run in runs.values()] == ["Succeeded"] * 3
    assert runs["nfs"]["data_dir"] == "/data/imagenet" and runs["nfs"]["claim"] == "nfs-imagenet"
    png = name.with_suffix(".png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_teardown_stops_while_a_pod_uses_a_dataset_and_names_it(api):
    core = client.CoreV1Api(api)
    core.create_namespaced_pod("default", {"metadata": {"name": "notebook"}, "spec": {
        "containers": [{"name": "jupyter", "image": "jupyter", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "imagenet"}}]}})
    wait_until(lambda: core.read_namespaced_pod("notebook", "default").status.phase == "Running")
    returncode, output = run_playbook("playbooks/teardown.yml")
    assert returncode != 0
    assert "Still in use: default/notebook (imagenet, Running). Stop these pods first, or set teardown_force=true" in folded(output)
    assert client.CustomObjectsApi(api).get_namespaced_custom_object(*FLUID, "default", "datasets", "imagenet")
    core.delete_namespaced_pod("notebook", "default", grace_period_seconds=0)

    def gone():
        try:
            core.read_namespaced_pod("notebook", "default")
        except ApiException as error:
            return error.status == 404
        return False

    wait_until(gone)


def test_teardown_leaves_no_fluid_objects_pvs_or_pvcs_and_a_second_one_changes_nothing(api, kubeconfig):
    custom, core = client.CustomObjectsApi(api), client.CoreV1Api(api)
    # test_localcluster.py's own objects first: they are not the bundle's, but the check below is for all.
    for plural in ("dataloads", "datasets", "alluxioruntimes", "jindoruntimes"):
        for item in custom.list_namespaced_custom_object(*FLUID, "default", plural)["items"]:
            if item["metadata"]["name"] not in ("imagenet", "imagenet-warmup"):
                custom.delete_namespaced_custom_object(*FLUID, "default", plural, item["metadata"]["name"])
    for volume in core.list_persistent_volume().items:
        if volume.metadata.name not in ("nfs-imagenet", "default-imagenet"):
            core.delete_persistent_volume(volume.metadata.name)

    returncode, output = run_playbook("playbooks/teardown.yml")
    assert returncode == 0, output[-3000:]
    for plural in ("dataloads", "datasets", "alluxioruntimes", "jindoruntimes"):
        assert wait_until(lambda p=plural: custom.list_namespaced_custom_object(*FLUID, "default", p)["items"] == [] or None,
                          seconds=180) is True, plural
    assert custom.list_namespaced_custom_object("kubeflow.org", "v2beta1", "default", "mpijobs",
                                                label_selector="app.kubernetes.io/managed-by=fluidops")["items"] == []
    assert wait_until(lambda: not core.list_persistent_volume_claim_for_all_namespaces().items, seconds=120)
    assert wait_until(lambda: not core.list_persistent_volume().items, seconds=120)
    releases = subprocess.run([os.path.join(CACHE, "helm"), "list", "-A", "-o", "json", "--kubeconfig", kubeconfig],
                              check=True, capture_output=True, text=True).stdout
    assert "fluid" not in [r["name"] for r in json.loads(releases)]

    run = run_playbook("playbooks/teardown.yml")
    assert run.returncode == 0, run.output[-3000:]
    assert set(run.changed_per_host().values()) == {0}, run.tasks("changed")

