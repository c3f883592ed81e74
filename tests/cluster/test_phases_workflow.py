"""The runbooks (docs/runbooks) against the local cluster: every block marked runnable is run as
the on-call engineer would paste it (tests/runbook_shell.py). Each run must exit as the runbook
says, and its output hold the runbook's `expect` lines (healthy) or `symptom` lines (while the
failure is present). Where a failure can be made here, the test makes it as the other cluster
tests do (a dataset that never binds, a deletion a pod holds up, a DataLoad that fails, a tier
directory with the wrong owner), runs the runbook's Confirm commands, its Fix, then its Verify.
The last test fails when a runnable block was run by no test.

This file is the operator's workflow on the simulated cluster with the seeds' stores
(inventory/local-simulated): the deploy runbook converges the deployment, over the dataset
test_phases_secrets.py made, the others work on it, the benchmark runbook makes the dataset again
(with its OSS keys inline, at -vvv: no key in the output or the reports), and the teardown runbook
ends, leaving no Fluid object, PV or PVC for the tests after it. Each test leaves the deployment as
the next one needs it. Real: apiserver, Helm, Fluid's controllers, a real Alluxio, the node hosts.
Simulated: the kubelets (no CSI call, no FUSE pod, no container runs), training. tests/nodes runs
the FUSE and deletion runbooks where pods really run."""

import contextlib
import json
import os
import re
import shutil
import subprocess

import pytest
import yaml
from kubernetes import client
from kubernetes.client.rest import ApiException

from conftest import INVENTORY, SETTINGS, wait_until
from keys import INLINE, leaks, local_datasets_with_inline_keys
from playbook import LOCAL_CHARTS, REPO, folded
from runbook_shell import BLOCKS, RAN, environment, run

FLUID = ("data.fluid.io", "v1alpha1")
# The index's variables, as the local cluster has them (docs/runbooks/README.md).
LOCAL = {"INVENTORY": os.path.relpath(INVENTORY, REPO), "NS": "default", "DATASET": "imagenet"}
ROTATED = {"access_key_id": "local-rotated-id-7f3a", "access_key_secret": "local-rotated-secret-7f3a"}


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


def dataset(api, name):
    try:
        return client.CustomObjectsApi(api).get_namespaced_custom_object(*FLUID, "default", "datasets", name)
    except ApiException as error:
        if error.status == 404:
            return None
        raise


def generations(api):
    """The generation of imagenet's Dataset and AlluxioRuntime: it moves when their spec changes,
    not when Fluid writes their status (every 10 s here)."""
    custom = client.CustomObjectsApi(api)
    return {plural: custom.get_namespaced_custom_object(*FLUID, "default", plural, "imagenet")["metadata"]["generation"]
            for plural in ("datasets", "alluxioruntimes")}


def delete_pod(core, name):
    try:
        core.delete_namespaced_pod(name, "default", grace_period_seconds=0)
    except ApiException as error:
        if error.status != 404:
            raise

    def gone():
        try:
            core.read_namespaced_pod(name, "default")
        except ApiException as error:
            return error.status == 404
        return False

    wait_until(gone)


@contextlib.contextmanager
def app_pod(api, name):
    """A pod that mounts the dataset's claim, as a training worker does; kwok makes it Running
    without mounting anything. Gone afterwards, whoever deleted it."""
    core = client.CoreV1Api(api)
    core.create_namespaced_pod("default", {"metadata": {"name": name}, "spec": {
        "containers": [{"name": "reader", "image": "reader", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "imagenet"}}]}})

    def running():
        pod = core.read_namespaced_pod(name, "default")
        return pod if pod.status.phase == "Running" else None

    try:
        yield wait_until(running)
    finally:
        delete_pod(core, name)


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
    wait_until(lambda: [item["metadata"]["name"] for item in custom.list_namespaced_custom_object(
        *FLUID, "default", "datasets")["items"]] == ["imagenet"], seconds=180)


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


def test_verify_shows_the_healthy_deployment(shell):
    for block_id in ("verify-status", "verify-gate", "verify-fluid-objects", "verify-runtime-pods", "verify-volumes",
                     "verify-engine"):
        run(shell, block_id)


def test_a_dataset_that_never_binds_is_confirmed_fixed_and_verified(shell, api):
    # The failure: a Dataset without a runtime of its name, as one made by hand (tests/nodes/test_phases_warmup.py's).
    objects = client.CustomObjectsApi(api)
    objects.create_namespaced_custom_object(*FLUID, "default", "datasets", {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": {"name": "orphan"},
        "spec": {"mounts": [{"mountPoint": "pvc://nfs-imagenet", "name": "nfs"}]}})
    orphan = dict(shell, DATASET="orphan")
    try:
        wait_until(lambda: ((dataset(api, "orphan") or {}).get("status") or {}).get("phase") == "NotBound", seconds=60)
        run(orphan, "notbound-status", state="symptom")
        run(orphan, "notbound-why", state="symptom", fails=True)
        assert "alluxioruntime.data.fluid.io/orphan" not in run(orphan, "notbound-objects", state="symptom")
        run(orphan, "notbound-pods", state="symptom")
        run(orphan, "notbound-events", state="symptom")
        # Fix: the inventory's phases change nothing here; the stray dataset is deleted.
        run(orphan, "notbound-datasets")
        run(orphan, "notbound-labels")
        run(orphan, "notbound-delete")
        run(orphan, "notbound-gate")
        assert dataset(api, "orphan") is None
    finally:
        if dataset(api, "orphan"):
            objects.delete_namespaced_custom_object(*FLUID, "default", "datasets", "orphan")


def test_a_dataload_that_fails_is_confirmed_fixed_and_verified(shell, tmp_path):
    run(shell, "warmup-run")  # the deployment's warm-up is Complete: nothing to load
    # The failure: a warm-up target mistyped in the inventory; the Complete warm-up goes first, as
    # the warm-up runbook says for new targets. Fluid retries the loader 3 times (about 2 minutes).
    typo = dict(shell, DATALOAD="imagenet-warmup", INVENTORY=inventory_copy(tmp_path, lambda data: data["datasets_list"][0][
        "warmup"].update(targets=[{"path": "/imagenet/tain"}, {"path": "/imagenet/validation"}])))
    run(typo, "warmup-again", state="other")
    output = run(typo, "warmup-run", state="symptom", fails=True)
    # The loader pod fails 4 times (the chart's backoffLimit 3, the Job controller's back-off), then
    # Fluid copies the Job's condition; the module adds the loader's own words: the script's trace
    # (set -x) of the real `alluxio fs ls` answer, and its message.
    assert ("DataLoad default/imagenet-warmup Failed: BackoffLimitExceeded: Job has reached the specified backoff limit; "
            "loader pod imagenet-warmup-loader-job-") in folded(output), output[-3000:]
    assert re.search(r"last lines: .*/imagenet/tain\S* does not exist.* \| dataLoad failed because some paths not exist\.",
                     folded(output)), output[-3000:]
    run(typo, "warm-bundle", state="symptom", fails=True)  # again: at once, the same answer
    for block_id in ("warm-dataloads", "warm-describe", "warm-loader-log"):
        run(typo, block_id, state="symptom")
    # Fix: the inventory corrected, the failed DataLoad deleted, the warm-up again.
    fixed = dict(typo, INVENTORY=LOCAL["INVENTORY"])
    run(fixed, "warm-delete")
    run(fixed, "warm-again")
    run(fixed, "warm-check")
    run(fixed, "warmup-dataloads")


def test_scaling_the_workers_in_and_out(shell, api, tmp_path):
    def runtime():
        return client.CustomObjectsApi(api).get_namespaced_custom_object(*FLUID, "default", "alluxioruntimes", "imagenet")

    three = dict(shell, REPLICAS="3", INVENTORY=inventory_copy(
        tmp_path, lambda data: data["datasets_list"][0]["runtime"].update(replicas=3)))
    before = generations(api)
    try:
        run(three, "scale-apply")
        # The runtime's spec only, as the runbook says.
        assert generations(api) == dict(before, alluxioruntimes=before["alluxioruntimes"] + 1)
        run(three, "scale-wait")
        run(three, "scale-check")
        # Back to the inventory's number (every GPU node), by the same commands.
        back = dict(shell, REPLICAS="4")
        run(back, "scale-apply", state="other")
        run(back, "scale-wait", state="other")
        assert (runtime()["spec"]["replicas"], runtime()["status"]["workerNumberReady"]) == (4, 4)
    finally:
        if runtime()["spec"]["replicas"] != 4:
            client.CustomObjectsApi(api).patch_namespaced_custom_object(*FLUID, "default", "alluxioruntimes", "imagenet",
                                                                        {"spec": {"replicas": 4}})
            wait_until(lambda: runtime()["status"].get("workerNumberReady") == 4, seconds=120)


def test_upgrading_fluid_to_the_same_chart(shell):
    # Only 1.0.8 is built here: the procedure runs from 1.0.8 to 1.0.8 (the runbook says so).
    upgrade = dict(shell, FLUID_CHART=LOCAL_CHARTS["fluid_chart_ref"])
    for block_id in ("upgrade-now", "upgrade-crd-diff", "upgrade-preview", "upgrade-apply", "upgrade-crds-current",
                     "upgrade-controllers"):
        run(upgrade, block_id)


def test_the_csi_root_dir_commands_on_a_pod_using_the_dataset(shell, api):
    # kwok calls no CSI plugin: the commands read the release and the plugin's DaemonSet, and the
    # Fix runs with the inventory unchanged.
    with app_pod(api, "reader") as pod:
        csi = dict(shell, POD=pod.metadata.name)
        assert "'fluid_csi_kubelet_root_dir' is undefined" in run(csi, "csi-inventory")  # the role's default, /var/lib/kubelet
        for block_id in ("csi-deployed-values", "csi-plugin-root-dir", "csi-registered", "csi-plugin-pods", "csi-apply",
                         "csi-app-pod"):
            run(csi, block_id)


def test_a_tier_directory_given_away_is_confirmed_fixed_and_verified(shell):
    # The failure, on a real node host: the SSD tier directory owned by nobody, mode 0700.
    host, tier = "gpu-node-2", "/var/lib/docker/alluxio"

    def podman_exec(command):
        subprocess.run(["podman", "exec", host, "sh", "-c", command], check=True, capture_output=True, text=True)

    podman_exec("chown 65534:65534 %s && chmod 0700 %s" % (tier, tier))
    try:
        run(shell, "tier-dirs", state="symptom")
        run(shell, "tier-runtime-user")
        run(shell, "tier-workers")
        # The node phase puts it back; it is also the FUSE runbook's fix for a node without FUSE.
        run(shell, "tier-nodes", "fuse-nodes")
        assert "nobody" not in run(shell, "tier-dirs")
    finally:
        podman_exec("chown root:root %s && chmod 0750 %s" % (tier, tier))


def test_the_fuse_commands_on_a_pod_using_the_dataset(shell, api):
    # No FUSE pod ever starts here (no CSI call): the commands find none, and the pod runs
    # (tests/nodes makes the failures where pods really run).
    with app_pod(api, "reader") as pod:
        fuse = dict(shell, POD=pod.metadata.name, NODE=pod.spec.node_name)
        assert re.search(r"imagenet\s+AlluxioRuntime\s+Ready 1/1\s+Ready 4/4\s+Ready 0/0", run(fuse, "fuse-status"))
        run(fuse, "fuse-describe-pod")
        assert "No resources found" in run(fuse, "fuse-on-node")
        # The master's commands on a healthy deployment: 1/1, and starting it changes nothing but
        # the pod it deletes (the Fix deletes the pods that wait); the cache is freed, no FUSE pod
        # is there to start again.
        for block_id in ("fuse-master", "fuse-pods", "fuse-restart", "fuse-master-start", "fuse-master-clear"):
            run(fuse, block_id)
    with app_pod(api, "reader") as pod:
        run(dict(shell, POD=pod.metadata.name, NODE=pod.spec.node_name), "fuse-app-pod")


def test_rotating_the_oss_keys_makes_the_dataset_again_with_them(shell, api, tmp_path):
    core = client.CoreV1Api(api)
    before = core.read_namespaced_secret("imagenet-oss", "default").data
    rotated = dict(shell, SECRET="imagenet-oss", INVENTORY=inventory_copy(
        tmp_path, lambda data: data["datasets_oss_secrets"]["imagenet-oss"].update(ROTATED)))
    specs = generations(api)
    try:
        run(rotated, "rotate-secret")
        # The Secret, and neither the Dataset's spec nor its runtime's (Fluid reads the keys when it mounts).
        assert run(rotated, "rotate-secret-key-id").strip() == ROTATED["access_key_id"][-4:]
        assert generations(api) == specs
        for block_id in ("recreate-delete", "recreate-make", "recreate-check"):
            run(rotated, block_id)
        output = run(rotated, "rotate-mounted-after")
        written = re.search(r"Secret written: (\S+)", output).group(1)
        created = re.search(r"master created: (\S+)", output).group(1)
        assert written < created, output  # RFC 3339 times in UTC compare as text
    finally:
        core.patch_namespaced_secret("imagenet-oss", "default", {"data": before})


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


def test_a_deletion_a_pod_holds_up_is_confirmed_fixed_and_verified(shell, api):
    # The failure: the dataset deleted while a notebook pod mounts its claim (Fluid's real dataset
    # controller keeps its finalizer). The dataset is gone afterwards; the teardown test follows.
    core = client.CoreV1Api(api)
    with app_pod(api, "notebook"):
        client.CustomObjectsApi(api).delete_namespaced_custom_object(*FLUID, "default", "datasets", "imagenet")
        wait_until(lambda: (dataset(api, "imagenet") or {}).get("metadata", {}).get("deletionTimestamp"))

        def refused():
            events = core.list_namespaced_event("default", field_selector="involvedObject.kind=Dataset,involvedObject.name=imagenet")
            return any("is using it" in (event.message or "") for event in events.items)

        wait_until(refused, seconds=60)
        stuck = dict(shell, POD="notebook")
        run(stuck, "terminating-teardown-check", state="symptom", fails=True)
        for block_id in ("terminating-dataset", "terminating-events", "terminating-users"):
            run(stuck, block_id, state="symptom")
        run(stuck, "terminating-stop-pod")
        run(stuck, "terminating-gone")
        run(stuck, "terminating-teardown-check")  # exits 0 now: nothing uses a dataset


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


def test_every_runnable_block_was_run():
    # Run the whole file: a block added to a runbook and run by no test fails here (and, without a
    # cluster, in tests/unit/test_runbooks.py when no test names it).
    assert sorted(set(BLOCKS) - set(RAN)) == []
