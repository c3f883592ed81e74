"""The runbooks (docs/runbooks) on the real nodes, after test_real_nodes.py: every block marked
runnable is run as the on-call engineer would paste it (tests/runbook_shell.py), on the deployment
site.yml made with the local inventory. Each run must exit as the runbook says, and its output hold
the runbook's `expect` lines (healthy) or `symptom` lines (while the failure is present). Where a
failure can be made here, the test makes it (a dataset that never binds, a DataLoad whose loader
pod fails, a tier directory given away, a deletion a pod that really mounts the claim holds up),
runs the runbook's Confirm commands, its Fix, then its Verify. The S3 stand-in's keys are rotated
to a second key the store really checks, and the dataset made again with it. Each test leaves the
deployment as the next one needs it; the last deletes the dataset under a pod that mounts it.
test_scale_nodes.py follows, then test_teardown.py."""

import json
import re
import shutil
import subprocess

import yaml

from conftest import INVENTORY, NODES, host, wait_until
from keys import leaks
from playbook import folded
from pods import BASELINE, DATASET, READ, events, kubectl, pod, pods, read_sums, running_pod
from runbook_shell import run

# The inventory's deployment settings, which an operator edits.
SETTINGS = "group_vars/all/deployment.yml"
# A second key of the S3 stand-in, for the rotation.
ROTATED = {"access_key_id": "local-rotated-id-7f3a", "access_key_secret": "local-rotated-secret-7f3a"}
# A third, inline in the benchmark's Dataset, distinctive for the leak checks.
INLINE_S3 = {"aws.accessKeyId": "LEAK-inline-s3-id-5e0c", "aws.secretKey": "LEAK-inline-s3-secret-5e0c"}


def inventory_copy(tmp_path, change):
    """The local inventory as a copy whose deployment settings ``change`` edited, as an operator
    edits theirs; the path, for INVENTORY."""
    target = tmp_path / "inventory"
    shutil.copytree(INVENTORY, target)
    settings = target / SETTINGS
    data = yaml.safe_load(settings.read_text(encoding="utf-8"))
    change(data)
    settings.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return str(target)


def field(kubeconfig, kind, name, path):
    """A field of an object, by kubectl's jsonpath; empty when the object is not there."""
    return kubectl(kubeconfig, "get", kind, name, "-o", "jsonpath={%s}" % path, check=False).stdout


def generations(kubeconfig):
    """The generation of the dataset and its AlluxioRuntime: it moves when their spec changes, not
    when Fluid writes their status."""
    return {kind: field(kubeconfig, kind, DATASET, ".metadata.generation") for kind in ("dataset", "alluxioruntime")}


def sleeper(name, images, node):
    """A pod that mounts the dataset's claim and waits, as a notebook does."""
    return pod(name, images["alluxio"], "sleep infinity", node=node, volumes=[("data", DATASET)])


def nodes_with(path):
    """The nodes whose host has ``path``."""
    return [node for node in NODES if subprocess.run(["podman", "exec", host(node), "test", "-e", path], check=False).returncode == 0]


# The dataset's cache directory as Fluid names it (its MEM tier), which its worker and FUSE pods
# mount, and the worker's own directory of blocks in it.
CACHE_DIR = "/dev/shm/default/" + DATASET
WORKER_DIR = CACHE_DIR + "/alluxioworker"


def dataset_mounts(node):
    """The node host's mounts of the dataset: its FUSE mount and the pods' binds of it."""
    table = subprocess.run(["podman", "exec", host(node), "findmnt", "-rn", "-o", "TARGET,SOURCE,FSTYPE"], capture_output=True,
                           text=True, check=True).stdout
    return [line for line in table.splitlines() if "/default/%s/" % DATASET in line or "default-" + DATASET in line]


def test_verify_shows_the_healthy_deployment(fluid, shell):  # pylint: disable=unused-argument
    for block_id in ("verify-status", "verify-gate", "verify-fluid-objects", "verify-runtime-pods", "verify-volumes",
                     "verify-engine"):
        run(shell, block_id)


def test_a_dataset_that_never_binds_is_confirmed_fixed_and_verified(kubeconfig, shell):
    # The failure: a Dataset without a runtime of its name, as one made by hand.
    kubectl(kubeconfig, "apply", "-f", "-", stdin=yaml.safe_dump({
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": {"name": "orphan", "namespace": "default"},
        "spec": {"mounts": [{"mountPoint": "local:///standins/imagenet", "name": "imagenet"}]}}))
    orphan = dict(shell, DATASET="orphan")
    try:
        wait_until(lambda: field(kubeconfig, "dataset", "orphan", ".status.phase") == "NotBound", 60, what="orphan NotBound")
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
        assert not field(kubeconfig, "dataset", "orphan", ".metadata.name")
    finally:
        kubectl(kubeconfig, "delete", "dataset", "orphan", "--ignore-not-found", check=False)


def cached_percentage(kubeconfig):
    """The dataset's cached percentage as Fluid last read it from the master, a number."""
    return float(field(kubeconfig, "dataset", DATASET, ".status.cacheStates.cachedPercentage").rstrip("%") or "0")


def test_a_cache_freed_after_its_warm_up_is_confirmed_and_warmed_again(kubeconfig, shell):
    # The failure: blocks freed after the warm-up completed, as the FUSE runbook's fix for a master
    # made again frees them all; the Complete DataLoad stays.
    kubectl(kubeconfig, "exec", DATASET + "-master-0", "-c", "alluxio-master", "--", "alluxio", "fs", "free", "/imagenet/validation")
    wait_until(lambda: cached_percentage(kubeconfig) < 100, 120, every=2, what="Fluid reading the freed cache")
    warm = dict(shell, DATALOAD=DATASET + "-warmup")
    output = run(warm, "warmup-run", state="symptom", fails=True)
    assert re.search(r"DataLoad default/imagenet-warmup is Complete but dataset imagenet is [0-9.]+% cached .* below the 100.0% "
                     r"asked for .*: the cache holds the data but lost blocks after the load completed", folded(output)), output[-3000:]
    # Fix: the DataLoad from before deleted, the warm-up again.
    run(warm, "warm-delete")
    run(warm, "warm-again")
    run(warm, "warm-check")
    assert cached_percentage(kubeconfig) == 100
    output = run(shell, "warmup-run")  # Complete and whole: nothing to load, and listed before
    assert "imagenet: listed before on" in folded(output), output[-3000:]
    # The listing again, as after the FUSE pods restarted: the record removed, on every node.
    run(shell, "warmup-list-again")
    output = run(shell, "warmup-run")
    assert re.search(r"imagenet: listed on 4 nodes in [0-9.]+ s; files found: ", folded(output)), output[-3000:]


def test_a_dataload_whose_loader_pod_fails_is_confirmed_fixed_and_verified(kubeconfig, shell, tmp_path):
    # The failure: a warm-up target mistyped in the inventory; the Complete warm-up goes first, as
    # the warm-up runbook says for new targets.
    typo = dict(shell, DATALOAD=DATASET + "-warmup", INVENTORY=inventory_copy(tmp_path, lambda data: data["datasets_list"][0][
        "warmup"].update(targets=[{"path": "/imagenet/tain"}, {"path": "/imagenet/validation"}])))
    run(typo, "warmup-again", state="other")
    output = run(typo, "warmup-run", state="symptom", fails=True)
    # Fluid's loader Job fails 4 times (its chart's backoffLimit 3), each a real pod whose
    # alluxio_dataload.sh asks the real master; then Fluid copies the Job's condition, and the
    # module adds the loader's own last lines.
    assert ("DataLoad default/imagenet-warmup Failed: BackoffLimitExceeded: Job has reached the specified backoff limit; "
            "loader pod imagenet-warmup-loader-job-") in folded(output), output[-3000:]
    # Both of the loader's lines, in either order: its script's stdout and its set -x trace on
    # stderr reach the pod's log through two pipes, interleaved as the runtime reads them.
    _before, found, last_lines = folded(output).partition("last lines: ")
    assert found, output[-3000:]
    for line in (r"/imagenet/tain\S* does not exist", r"dataLoad failed because some paths not exist\."):
        assert re.search(line, last_lines), output[-3000:]
    failed = [item for item in pods(kubeconfig, "-l", "role=dataload-pod") if item["status"]["phase"] == "Failed"]
    assert len(failed) == 4 and {item["spec"]["nodeName"] for item in failed} <= set(NODES), failed
    run(typo, "warm-bundle", state="symptom", fails=True)  # again: at once, the same answer
    for block_id in ("warm-dataloads", "warm-describe", "warm-loader-log"):
        run(typo, block_id, state="symptom")
    # Fix: the inventory corrected, the failed DataLoad deleted, the warm-up again.
    fixed = dict(typo, INVENTORY=shell["INVENTORY"])
    run(fixed, "warm-delete")
    run(fixed, "warm-again")
    run(fixed, "warm-check")
    run(fixed, "warmup-dataloads")


def test_scaling_the_workers_out_and_in(kubeconfig, shell, tmp_path):
    two = dict(shell, REPLICAS="2", INVENTORY=inventory_copy(tmp_path, lambda data: data["datasets_list"][0]["runtime"].update(replicas=2)))
    before = generations(kubeconfig)
    try:
        run(two, "scale-apply")
        # The runtime's spec only, as the runbook says.
        assert generations(kubeconfig) == dict(before, alluxioruntime=str(int(before["alluxioruntime"]) + 1))
        run(two, "scale-wait")
        run(two, "scale-check")
        # Each worker a pod on a node of its own (Exclusive placement), running.
        workers = pods(kubeconfig, "-l", "release=%s,role=alluxio-worker" % DATASET)
        assert len({item["spec"]["nodeName"] for item in workers if item["status"]["phase"] == "Running"}) == 2, workers
        # Back to the inventory's number, by the same commands.
        back = dict(shell, REPLICAS="1")
        run(back, "scale-apply", state="other")
        run(back, "scale-wait", state="other")
        assert (field(kubeconfig, "alluxioruntime", DATASET, ".spec.replicas"),
                field(kubeconfig, "alluxioruntime", DATASET, ".status.workerNumberReady")) == ("1", "1")
    finally:
        if field(kubeconfig, "alluxioruntime", DATASET, ".spec.replicas") != "1":
            kubectl(kubeconfig, "patch", "alluxioruntime", DATASET, "--type=merge", "-p", '{"spec": {"replicas": 1}}')


def test_the_csi_root_dir_commands_on_a_pod_using_the_dataset(kubeconfig, fluid, images, shell):  # pylint: disable=unused-argument
    # The kubelets' root is the default one, as the release's and the plugin's: the Fix runs with
    # the inventory unchanged, and the pod mounts the dataset.
    with running_pod(kubeconfig, sleeper("csi-reader", images, "gpu-node-1")):
        kubectl(kubeconfig, "wait", "--for=condition=Ready", "pod/csi-reader", "--timeout=600s")
        csi = dict(shell, POD="csi-reader")
        assert "'fluid_csi_kubelet_root_dir' is undefined" in run(csi, "csi-inventory")  # the role's default, /var/lib/kubelet
        for block_id in ("csi-deployed-values", "csi-plugin-root-dir", "csi-registered", "csi-plugin-pods", "csi-apply",
                         "csi-app-pod"):
            run(csi, block_id)


def test_a_tier_directory_given_away_is_confirmed_fixed_and_verified(shell):
    # The failure, on a node host: the SSD tier directory owned by nobody, mode 0700.
    node, tier = host("gpu-node-2"), "/var/lib/docker/alluxio"

    def podman_exec(command):
        subprocess.run(["podman", "exec", node, "sh", "-c", command], check=True, capture_output=True, text=True)

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


def test_the_fuse_commands_on_a_healthy_pod_using_the_dataset(kubeconfig, fluid, images, shell):
    # test_real_nodes.py makes the FUSE runbook's failures; here its commands on a healthy pod.
    with running_pod(kubeconfig, pod("fuse-reader", images["alluxio"], READ + " && sleep infinity", node="gpu-node-4",
                                     volumes=[("data", DATASET)])):
        kubectl(kubeconfig, "wait", "--for=condition=Ready", "pod/fuse-reader", "--timeout=600s")
        fuse = dict(shell, POD="fuse-reader", NODE="gpu-node-4")
        assert re.search(r"%s\s+AlluxioRuntime\s+Ready 1/1\s+Ready 1/1\s+Ready (\d)/\1" % DATASET, run(fuse, "fuse-status"))
        assert "Started container main" in folded(run(fuse, "fuse-describe-pod"))
        on_node = run(fuse, "fuse-on-node")
        assert on_node.splitlines()[0] == "true" and DATASET + "-fuse-" in on_node and "Running" in on_node, on_node
        run(fuse, "fuse-pods")
        run(fuse, "fuse-master")
        wait_until(lambda: read_sums(kubectl(kubeconfig, "logs", "fuse-reader").stdout) == fluid, 120, every=1,
                   what="the pod's md5sum of the dataset")


def store_admin(kubeconfig, *args):
    """versitygw's admin tool in the S3 stand-in's pod, as its root account (the pod's keys)."""
    return kubectl(kubeconfig, "exec", "-n", "object-store", "deploy/s3", "--", "sh", "-c",
                   'exec versitygw admin --access "$ROOT_ACCESS_KEY" --secret "$ROOT_SECRET_KEY" --endpoint-url http://127.0.0.1:7070 "$@"',
                   "admin", *args)


def test_rotating_the_s3_keys_makes_the_dataset_again_with_them(kubeconfig, shell, tmp_path):
    # Step 1, in the store: a second key (an admin account of the gateway), the first still valid.
    store_admin(kubeconfig, "create-user", "--access", ROTATED["access_key_id"], "--secret", ROTATED["access_key_secret"],
                "--role", "admin")
    assert ROTATED["access_key_id"] in store_admin(kubeconfig, "list-users").stdout
    rotated = dict(shell, SECRET="imagenet-s3", INVENTORY=inventory_copy(
        tmp_path, lambda data: data["datasets_s3_secrets"]["imagenet-s3"].update(ROTATED)))
    specs = generations(kubeconfig)
    run(rotated, "rotate-secret")
    # The Secret, and neither the Dataset's spec nor its runtime's (Fluid reads the keys when it mounts).
    assert run(rotated, "rotate-secret-key-id").strip() == ROTATED["access_key_id"][-4:]
    assert generations(kubeconfig) == specs
    # The worker scaled out and in before left its directory on a second node, which Fluid does
    # not free; the teardown removes the cache directory from every node, so the new runtime's
    # workers find no earlier block.
    assert len(nodes_with(WORKER_DIR)) == 2, nodes_with(WORKER_DIR)
    run(rotated, "recreate-delete")
    assert nodes_with(CACHE_DIR) == []
    for block_id in ("recreate-make", "recreate-check"):
        run(rotated, block_id)
    worker = pods(kubeconfig, "-l", "release=%s,role=alluxio-worker" % DATASET)
    assert nodes_with(WORKER_DIR) == [item["spec"]["nodeName"] for item in worker]
    output = run(rotated, "rotate-mounted-after")
    written = re.search(r"Secret written: (\S+)", output).group(1)
    created = re.search(r"master created: (\S+)", output).group(1)
    assert written < created, output  # RFC 3339 times in UTC compare as text
    # The new master mounted the bucket with the second key: the master pod holds it in its
    # mounted Secret, and listed the bucket (its size) with it.
    mounted = kubectl(kubeconfig, "exec", DATASET + "-master-0", "-c", "alluxio-master", "--", "cat",
                      "/etc/fluid/secrets/imagenet-s3/aws.accessKeyId").stdout
    assert mounted == ROTATED["access_key_id"]
    assert field(kubeconfig, "dataset", DATASET, ".status.ufsTotal") == "9.00MiB"


def test_the_benchmark_with_the_keys_inline_at_vvv(kubeconfig, site_run, shell, tmp_path):  # pylint: disable=unused-argument
    """docs/runbooks/benchmark.md: the same job on imagenet-baseline (the bucket through s3fs, no
    cache), then on imagenet made again (cold), then warmed; its ranks really read each claim
    (their GPUs are SIMULATED). The dataset is made again from an inventory whose S3 keys (a third
    key the store checks) are inline in the Dataset (allow_inline_credentials), at -vvv: they reach
    the cluster, and neither the output nor a report (keys.py)."""
    store_admin(kubeconfig, "create-user", "--access", INLINE_S3["aws.accessKeyId"], "--secret", INLINE_S3["aws.secretKey"],
                "--role", "admin")

    def inline_keys(data):
        mount = data["datasets_list"][0]["mounts"][0]
        del mount["s3_secret"]
        mount.update(allow_inline_credentials=True, options=dict(mount["options"], **INLINE_S3))

    reports = tmp_path / "reports"
    bench = dict(shell, REPORTS=str(reports), ANSIBLE_VERBOSITY="3", INVENTORY=inventory_copy(tmp_path, inline_keys))
    output = run(bench, "benchmark-run")
    options = json.loads(field(kubeconfig, "dataset", DATASET, ".spec.mounts[0].options"))
    assert options["aws.accessKeyId"] == INLINE_S3["aws.accessKeyId"]
    keys = list(INLINE_S3.values())
    assert leaks(output, keys) == []
    assert {path.name: leaks(path.read_bytes().decode("latin-1"), keys) for path in reports.iterdir()
            if leaks(path.read_bytes().decode("latin-1"), keys)} == {}
    assert "SIMULATED" in run(bench, "benchmark-report")
    compared = run(bench, "benchmark-compare")
    speed = {label: float(value) for label, value in re.findall(r"^(nfs|fluid \(cold\)|fluid \(warm\)) Succeeded ([0-9.]+)$",
                                                                compared, flags=re.M)}
    # Each rate within the SIMULATED GPUs' (4 ranks of 200 images/sec): which of the three is
    # fastest is the measurement's, not the test's.
    assert len(speed) == 3 and all(0 < value <= 4 * 200 for value in speed.values()), compared
    name = reports / "horovod-resnet50-v2-2x2"
    report = json.loads(name.with_suffix(".json").read_text())
    runs = {entry["label"]: entry for entry in report["runs"]}
    assert list(runs) == ["nfs", "fluid (cold)", "fluid (warm)"] and report["simulated"]
    assert (runs["nfs"]["claim"], runs["nfs"]["data_dir"]) == (BASELINE, "/data"), runs["nfs"]
    assert (runs["fluid (cold)"]["claim"], runs["fluid (cold)"]["data_dir"]) == (DATASET, "/data/" + DATASET)
    assert all(entry["throughput"]["ranks"] == 4 for entry in runs.values()), runs
    # Each rank's own read rate, from its last line, behind each column.
    assert all(len(entry["throughput"]["read_mib_per_sec"]) == 4 and min(entry["throughput"]["read_mib_per_sec"]) > 0
               for entry in runs.values()), runs
    assert "| Read per rank (MiB/s) |" in name.with_suffix(".md").read_text()
    png = name.with_suffix(".png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    # Left warm.
    assert field(kubeconfig, "dataset", DATASET, ".status.cacheStates.cachedPercentage") == "100.0%"


def test_a_deletion_held_up_by_a_pod_that_mounts_the_claim(kubeconfig, fluid, images, shell):
    """docs/runbooks/troubleshooting/dataset-stuck-terminating.md with a pod that really mounts the
    claim: the dataset deleted under it is held (it still reads), Confirm's commands show why,
    stopping the pod lets the dataset, its claim and runtime go, and no FUSE mount is left on
    any node. The dataset is gone afterwards; the teardown test follows."""
    with running_pod(kubeconfig, sleeper("notebook", images, "gpu-node-2")):
        kubectl(kubeconfig, "wait", "--for=condition=Ready", "pod/notebook", "--timeout=600s")
        assert dataset_mounts("gpu-node-2"), "no mount of the dataset on the notebook's node"
        stuck = dict(shell, POD="notebook")
        run(stuck, "terminating-teardown-check", state="symptom", fails=True)
        kubectl(kubeconfig, "delete", "dataset", DATASET, "--wait=false")
        wait_until(lambda: "Pod notebook in Namespace default is using it" in events(kubeconfig, "Dataset", DATASET), 120, every=2,
                   what="Fluid refusing the deletion")
        for block_id in ("terminating-dataset", "terminating-events", "terminating-users"):
            run(stuck, block_id, state="symptom")
        reading = kubectl(kubeconfig, "exec", "notebook", "--", "sh", "-c", READ)
        assert read_sums(reading.stdout) == fluid
        run(stuck, "terminating-stop-pod")
        run(stuck, "terminating-gone")
        run(stuck, "terminating-teardown-check")  # exits 0 now: nothing uses a dataset
    kubectl(kubeconfig, "wait", "--for=delete", "alluxioruntime/" + DATASET, "--timeout=300s")
    wait_until(lambda: not kubectl(kubeconfig, "get", "pods", "-l", "release=" + DATASET, "-o", "name").stdout, 300, every=2,
               what="the runtime's pods gone")
    for node in NODES:
        assert dataset_mounts(node) == [], node
