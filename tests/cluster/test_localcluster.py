"""The local cluster: real etcd, kube-apiserver, controller-manager, scheduler and Helm;
kwok-simulated V100 nodes (simulated kubelets) and simulated Fluid/mpi-operator controllers."""

import os
import subprocess

import pytest
import yaml
from kubernetes import client
from kubernetes.client.rest import ApiException

from conftest import CACHE, NODES, cluster, pinned, wait_until


def test_server_reports_the_pinned_version(api):
    assert client.VersionApi(api).get_code().git_version == pinned("KUBE_VERSION")


def test_four_ready_simulated_v100_nodes_with_8_gpus_each(api):
    nodes = {node.metadata.name: node for node in client.CoreV1Api(api).list_node().items}
    assert sorted(nodes) == NODES
    for node in nodes.values():
        ready = [c.status for c in node.status.conditions if c.type == "Ready"]
        assert ready == ["True"], node.metadata.name
        assert node.status.allocatable["nvidia.com/gpu"] == "8"
        assert node.metadata.labels["aliyun.accelerator/nvidia_name"] == "Tesla-V100-SXM2-16GB"


def test_second_cluster_up_is_harmless(kubeconfig, api):
    before = client.CoreV1Api(api).read_node("gpu-node-1").metadata.uid
    cluster("up")
    assert client.CoreV1Api(api).read_node("gpu-node-1").metadata.uid == before


def test_node_hosts_run_under_the_node_names(kubeconfig):
    for name in NODES:
        state = subprocess.run(["podman", "container", "inspect", "-f", "{{.State.Running}} {{.Config.Hostname}}", name],
                               check=True, capture_output=True, text=True).stdout.split()
        assert state == ["true", name]


def test_fluid_chart_installs_with_helm_and_its_controllers_exist(kubeconfig, api):
    chart = os.path.join(CACHE, "fluid", "charts", "fluid", "fluid")
    subprocess.run(
        [os.path.join(CACHE, "helm"), "upgrade", "--install", "fluid", chart, "--kubeconfig", kubeconfig,
         "--namespace", "fluid-system", "--create-namespace", "--wait", "--timeout", "3m",
         "--set", "webhook.enabled=false", "--set", "crdUpgrade.enabled=false"],
        check=True, capture_output=True, text=True,
    )
    deployments = {d.metadata.name: d for d in client.AppsV1Api(api).list_namespaced_deployment("fluid-system").items}
    assert {"dataset-controller", "alluxioruntime-controller", "jindoruntime-controller"} <= set(deployments)
    # The dataset controller's pod is scheduled by the real scheduler onto a simulated node.
    assert deployments["dataset-controller"].status.ready_replicas == 1
    drivers = [d.metadata.name for d in client.StorageV1Api(api).list_csi_driver().items]
    assert "fuse.csi.fluid.io" in drivers


def test_apiserver_rejects_a_dataset_that_breaks_the_crd_schema(api):
    bad = yaml.safe_load("""
        apiVersion: data.fluid.io/v1alpha1
        kind: Dataset
        metadata: {name: broken, namespace: default}
        spec:
          mounts: oss://imagenet/   # must be a list of mounts
    """)
    with pytest.raises(ApiException) as error:
        client.CustomObjectsApi(api).create_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", bad)
    assert error.value.status == 422
    assert "spec.mounts" in error.value.body and "array" in error.value.body


FLUID = ("data.fluid.io", "v1alpha1")


def create(api, plural, body, group=FLUID):
    return client.CustomObjectsApi(api).create_namespaced_custom_object(group[0], group[1], "default", plural, body)


def get(api, plural, name, group=FLUID):
    return client.CustomObjectsApi(api).get_namespaced_custom_object(group[0], group[1], "default", plural, name)


def dataset(name):
    return {"apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": {"name": name},
            "spec": {"mounts": [{"mountPoint": "oss://imagenet/data/", "name": name}]}}


def test_simulated_dataset_binds_only_once_its_runtime_is_ready(api):
    create(api, "datasets", dataset("sim-imagenet"))
    create(api, "datasets", dataset("no-runtime"))
    create(api, "alluxioruntimes", {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "AlluxioRuntime", "metadata": {"name": "sim-imagenet"},
        "spec": {"replicas": 4, "tieredstore": {"levels": [{"mediumtype": "MEM", "path": "/dev/shm", "quota": "100Gi"}]}}})
    status = wait_until(lambda: get(api, "datasets", "sim-imagenet").get("status", {}).get("phase") == "Bound"
                        and get(api, "datasets", "sim-imagenet")["status"])
    assert status["cacheStates"]["cacheCapacity"] == "400.00GiB"  # 4 workers x 100Gi
    assert status["cacheStates"]["cachedPercentage"] == "0.0%"
    assert get(api, "alluxioruntimes", "sim-imagenet")["status"]["workerNumberReady"] == 4
    assert get(api, "datasets", "no-runtime")["status"]["phase"] == "NotBound"
    claim = client.CoreV1Api(api).read_namespaced_persistent_volume_claim("sim-imagenet", "default")
    assert claim.spec.volume_name == "default-sim-imagenet"


def test_simulated_dataload_raises_the_cached_percentage_to_complete(api):
    create(api, "dataloads", {"apiVersion": "data.fluid.io/v1alpha1", "kind": "DataLoad", "metadata": {"name": "warmup"},
                              "spec": {"dataset": {"name": "sim-imagenet", "namespace": "default"}, "target": [{"path": "/"}]}})
    seen = set()

    def complete():
        seen.add(get(api, "datasets", "sim-imagenet")["status"]["cacheStates"]["cachedPercentage"])
        return get(api, "dataloads", "warmup").get("status", {}).get("phase") == "Complete"

    wait_until(complete, seconds=60, every=0.3)
    assert get(api, "datasets", "sim-imagenet")["status"]["cacheStates"]["cachedPercentage"] == "100.0%"
    rising = sorted(float(value.rstrip("%")) for value in seen)
    assert len([value for value in rising if 0.0 < value < 100.0]) >= 3, rising


def test_simulated_dataload_of_a_missing_path_fails_with_conditions(api):
    create(api, "dataloads", {"apiVersion": "data.fluid.io/v1alpha1", "kind": "DataLoad", "metadata": {"name": "missing"},
                              "spec": {"dataset": {"name": "sim-imagenet", "namespace": "default"}, "target": [{"path": "/no/such/dir"}]}})
    status = wait_until(lambda: get(api, "dataloads", "missing").get("status", {}).get("phase") == "Failed"
                        and get(api, "dataloads", "missing")["status"])
    assert status["conditions"][0]["type"] == "Failed"
    assert "/no/such/dir does not exist" in status["conditions"][0]["message"]


def test_simulated_mpijob_runs_pods_and_serves_tf_cnn_benchmarks_logs(api):
    template = {"spec": {"containers": [{"name": "mpi", "image": "horovod-benchmark"}]}}
    worker = {"spec": {"containers": [{"name": "mpi", "image": "horovod-benchmark"}],
                       "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "sim-imagenet"}}]}}
    create(api, "mpijobs", {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "resnet50"},
                            "spec": {"slotsPerWorker": 8, "runPolicy": {"cleanPodPolicy": "Running"}, "mpiReplicaSpecs": {
                                "Launcher": {"replicas": 1, "template": template},
                                "Worker": {"replicas": 4, "template": worker}}}}, group=("kubeflow.org", "v2beta1"))
    core = client.CoreV1Api(api)

    def launcher_phase():
        try:
            return core.read_namespaced_pod("resnet50-launcher", "default").status.phase
        except ApiException as error:
            if error.status == 404:
                return None
            raise

    wait_until(lambda: launcher_phase() == "Running")

    def job_pods():
        # The simulator creates the launcher first, then the workers one by one.
        items = core.list_namespaced_pod("default", label_selector="training.kubeflow.org/job-name=resnet50").items
        return items if len(items) == 5 else None

    pods = wait_until(job_pods)
    assert sorted(p.metadata.labels["training.kubeflow.org/job-role"] for p in pods) == ["launcher"] + ["worker"] * 4
    log = core.read_namespaced_pod_log("resnet50-launcher", "default", container="mpi")
    assert "[1,0]<stdout>:1000\timages/sec: " in log
    assert "total images/sec: " in log and "Accuracy @ 5 = " in log
    assert "SIMULATED" in log
    wait_until(lambda: launcher_phase() == "Succeeded", seconds=60)
    conditions = get(api, "mpijobs", "resnet50", group=("kubeflow.org", "v2beta1"))["status"]["conditions"]
    assert {c["type"]: c["status"] for c in conditions}["Succeeded"] == "True"
    # cleanPodPolicy Running: the workers go (their GPUs free), the Completed launcher stays.
    wait_until(lambda: [p.metadata.name for p in core.list_namespaced_pod(
        "default", label_selector="training.kubeflow.org/job-name=resnet50").items] == ["resnet50-launcher"])
