"""GPU nodes leaving and joining the pool (docs/runbooks/remove-node.md, add-node.md), after
test_runbooks.py deleted the dataset: gpu-node-3 and gpu-node-4 leave with the local inventory
(no runtime yet); the dataset is made with an inventory of the other two whose runtime follows the
pool (no runtime.replicas: two cache workers); gpu-node-2 cannot leave while a real MPIJob's pod
runs there, leaves drained (one worker, the capacity one tier quota less once Alluxio's master
gave the stopped worker up), a second time changing nothing, and joins again (two workers, the
capacity back), nothing else changing on gpu-node-1. test_teardown.py follows."""

import subprocess

import pytest
import yaml

from conftest import INVENTORY, host, wait_until
from pods import DATASET, kubectl
from runbook_shell import run
from test_runbooks import field, inventory_copy

POOL = ["gpu-node-1", "gpu-node-2"]
LEAVING = "gpu-node-2"
GPU_LABEL = "aliyun.accelerator/nvidia_name"
# inventory/local's tier (32Mi in memory) and cache mounts (gpu_node_cache_mounts).
TIER_BYTES = 32 * 2 ** 20
MOUNTS = ("/ram/alluxio", "/ram/client-cache")


def pool_inventory(tmp_path):
    """The local inventory with gpu-node-1 and gpu-node-2 only, and the dataset's runtime following
    the pool: one cache worker per GPU node."""
    def follow_the_pool(data):
        data["datasets_list"][0]["runtime"].pop("replicas")
    path = inventory_copy(tmp_path, follow_the_pool)
    hosts_file = "%s/hosts.yml" % path
    with open(hosts_file, encoding="utf-8") as handle:
        hosts = yaml.safe_load(handle)
    hosts["all"]["children"]["gpu_nodes"]["hosts"] = {name: None for name in POOL}
    with open(hosts_file, "w", encoding="utf-8") as handle:
        yaml.safe_dump(hosts, handle, sort_keys=False)
    return path


def mounted(node, path):
    return subprocess.run(["podman", "exec", host(node), "findmnt", "-n", path], capture_output=True, check=False).returncode == 0


def exists(node, path):
    return subprocess.run(["podman", "exec", host(node), "test", "-e", path], check=False).returncode == 0


def node_labels(kubeconfig, node):
    return yaml.safe_load(field(kubeconfig, "node", node, ".metadata.labels") or "{}")


def capacity(kubeconfig):
    return field(kubeconfig, "dataset", DATASET, ".status.cacheStates.cacheCapacity")


def changed(output):
    """{host: changed count} of a run's recap."""
    recap = output.rsplit("PLAY RECAP", 1)[-1]
    return {line.split()[0]: int(line.split("changed=")[1].split()[0]) for line in recap.splitlines() if "changed=" in line}


def blocker(images):
    """An MPIJob whose one worker runs on the leaving node and waits, as a training job's would."""
    def replica(command, node=None):
        spec = {"containers": [{"name": "main", "image": images["training"], "command": ["sleep", command]}],
                "terminationGracePeriodSeconds": 1}
        if node:
            spec["nodeSelector"] = {"kubernetes.io/hostname": node}
        return {"replicas": 1, "template": {"spec": spec}}
    return {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "pool-blocker", "namespace": "default"},
            "spec": {"slotsPerWorker": 1, "runPolicy": {"cleanPodPolicy": "Running"},
                     "mpiReplicaSpecs": {"Launcher": replica("3600"), "Worker": replica("3600", LEAVING)}}}


def test_nodes_leave_with_no_runtime_in_the_cluster_and_lose_labels_and_mounts(kubeconfig, shell):
    for node in ("gpu-node-3", "gpu-node-4"):
        assert GPU_LABEL in node_labels(kubeconfig, node) and mounted(node, MOUNTS[0])
    run(dict(shell, NODE="gpu-node-3,gpu-node-4"), "node-remove", state="other")
    for node in ("gpu-node-3", "gpu-node-4"):
        labels = node_labels(kubeconfig, node)
        assert GPU_LABEL not in labels and "fluidops.io/pool" not in labels, labels
        assert not field(kubeconfig, "node", node, ".metadata.annotations.fluidops\\.io/managed-labels")
        assert [path for path in MOUNTS if mounted(node, path) or exists(node, path)] == [], node
        assert not exists(node, "/var/lib/docker/alluxio"), node
        # Not drained: schedulable as before.
        assert not field(kubeconfig, "node", node, ".spec.unschedulable")


# kubernetes.core.k8s_drain names what a drain evicts and leaves, as kubectl drain does.
@pytest.mark.expected_warnings(r"\[WARNING\]: Deleting Pods with local storage: ", r"\[WARNING\]: Ignoring DaemonSet-managed Pods: ")
def test_a_node_leaves_the_pool_only_drained_while_a_training_job_runs_there(kubeconfig, images, shell, tmp_path):
    pool = dict(shell, INVENTORY=pool_inventory(tmp_path), NODE=LEAVING)
    run(pool, "scale-apply", state="other")  # the dataset, made for the pool of two
    kubectl(kubeconfig, "wait", "dataset/" + DATASET, "--for=jsonpath={.status.phase}=Bound", "--timeout=600s")
    wait_until(lambda: capacity(kubeconfig) == "64.00MiB", 600, every=2, what="two workers' capacity")
    kubectl(kubeconfig, "apply", "-f", "-", stdin=yaml.safe_dump(blocker(images)))
    try:
        kubectl(kubeconfig, "wait", "pod", "-l", "training.kubeflow.org/job-name=pool-blocker,training.kubeflow.org/job-role=worker",
                "--for=condition=Ready", "--timeout=600s")
        run(pool, "node-remove-pods")
        output = run(pool, "node-remove", state="other", fails=True)
        assert "default/pool-blocker-worker-0 (training job pool-blocker)" in output, output[-3000:]
        assert GPU_LABEL in node_labels(kubeconfig, LEAVING) and field(kubeconfig, "alluxioruntime", DATASET, ".spec.replicas") == "2"
        output = run(pool, "node-remove-drain")
        assert field(kubeconfig, "alluxioruntime", DATASET, ".spec.replicas") == "1"
        assert capacity(kubeconfig) == "32.00MiB"
        workers = kubectl(kubeconfig, "get", "pods", "-l", "release=%s,role=alluxio-worker" % DATASET, "-o",
                          "jsonpath={.items[*].spec.nodeName}").stdout.split()
        assert workers == ["gpu-node-1"], workers
        assert [path for path in MOUNTS if mounted(LEAVING, path) or exists(LEAVING, path)] == []
        run(pool, "node-remove-check")
        # The runbook: a second run changes nothing.
        again = run(pool, "node-remove-drain")
        assert set(changed(again).values()) == {0}, again[-3000:]
    finally:
        kubectl(kubeconfig, "delete", "mpijob", "pool-blocker", "--ignore-not-found", "--wait=true")


def test_the_node_joins_again_and_the_runtime_grows_over_it_alone(kubeconfig, shell, tmp_path):
    pool = dict(shell, INVENTORY=pool_inventory(tmp_path), NODE=LEAVING)
    output = run(pool, "node-add")
    # Only the joining host is in the run (the cluster's tasks are delegated from it): gpu-node-1 is not.
    assert list(changed(output)) == [LEAVING] and changed(output)[LEAVING] > 0, output[-3000:]
    assert field(kubeconfig, "alluxioruntime", DATASET, ".status.workerNumberReady") == "2"
    assert capacity(kubeconfig) == "64.00MiB"
    assert all(mounted(LEAVING, path) for path in MOUNTS)
    run(pool, "node-add-check")
    again = run(pool, "node-add")
    assert set(changed(again).values()) == {0}, again[-3000:]
    assert INVENTORY  # the local inventory stays as it is: test_teardown.py tears down with it
