"""The local cluster: real etcd, kube-apiserver, controller-manager, scheduler and Helm;
kwok-simulated V100 nodes (simulated kubelets). Brought up once for the module, torn down at
the end, and the teardown itself is checked."""

import os
import subprocess
import time

import pytest
import yaml
from kubernetes import client, config
from kubernetes.client.rest import ApiException

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLUSTER = os.path.join(REPO, "tools", "localcluster", "cluster.sh")
CACHE = os.path.join(os.environ.get("FLUIDOPS_CACHE_DIR", os.path.expanduser("~/.cache/fluidops")), "localcluster")
NODES = ["gpu-node-1", "gpu-node-2", "gpu-node-3", "gpu-node-4"]


def pinned(name):
    with open(os.path.join(REPO, "tools", "localcluster", "versions.env"), encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(name + "="):
                return line.split(":-", 1)[1].split("}", 1)[0]
    raise KeyError(name)


def cluster(*args):
    return subprocess.run([CLUSTER, *args], check=True, capture_output=True, text=True)


@pytest.fixture(scope="module")
def kubeconfig():
    cluster("up")
    path = cluster("kubeconfig").stdout.strip()
    yield path
    # test_cluster_down_leaves_nothing_behind runs last and takes it down; this covers failures.
    subprocess.run([CLUSTER, "down"], capture_output=True, check=False)


@pytest.fixture(scope="module")
def api(kubeconfig):
    return config.new_client_from_config(config_file=kubeconfig)


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


def test_dataset_becomes_bound_through_the_simulated_controller(api):
    objects = client.CustomObjectsApi(api)
    dataset = {"apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": {"name": "imagenet", "namespace": "default"},
               "spec": {"mounts": [{"mountPoint": "oss://imagenet/data/", "name": "imagenet"}]}}
    objects.create_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", dataset)
    phase = None
    for _ in range(60):
        phase = objects.get_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", "imagenet").get("status", {}).get("phase")
        if phase == "Bound":
            break
        time.sleep(0.5)
    assert phase == "Bound"


def test_cluster_down_leaves_nothing_behind(kubeconfig):
    cluster("down")
    leftovers = subprocess.run(["pgrep", "-af", CACHE], capture_output=True, text=True).stdout
    assert leftovers == ""
    for name in NODES:
        assert subprocess.run(["podman", "container", "exists", name], check=False).returncode == 1
    assert not os.path.exists(os.path.dirname(kubeconfig))
