"""The simulated cluster: real etcd, kube-apiserver, controller-manager, scheduler and Helm, Fluid's
real controllers and mpi-operator; kwok-simulated V100 nodes (simulated kubelets), where no pod
runs. What Fluid's controllers and mpi-operator do with real pods, and the bundle's phases, are
tests/nodes' (real nodes)."""

import os
import signal
import subprocess

import pytest
import yaml
from kubernetes import client
from kubernetes.client.rest import ApiException

from conftest import CACHE, NODES, RUN, cluster, pinned, started_pid, wait_until


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


def test_a_controller_that_exits_is_started_again_as_its_deployment_s_pod_would_be(kubeconfig):
    # mpi-operator exits when its apiserver is too slow to renew its leader lease (a busy machine).
    keeper = started_pid("mpi-operator")
    log = os.path.join(RUN, "logs", "mpi-operator.log")

    def operator():
        with open("/proc/%d/task/%d/children" % (keeper, keeper), encoding="ascii") as handle:
            return [int(pid) for pid in handle.read().split()]

    def leading():
        with open(log, encoding="utf-8") as handle:
            return handle.read().count("successfully acquired lease")

    (first,) = wait_until(operator, seconds=60)
    before = leading()
    os.kill(first, signal.SIGKILL)
    # Started again; it leads once the lease of the one killed runs out (15 s).
    wait_until(lambda: leading() > before, seconds=300)
    (second,) = operator()
    assert second != first


def test_node_hosts_run_under_the_node_names(kubeconfig):
    for name in NODES:
        state = subprocess.run(["podman", "container", "inspect", "-f", "{{.State.Running}} {{.Config.Hostname}}", name],
                               check=True, capture_output=True, text=True).stdout.split()
        assert state == ["true", name]


def test_helm_has_the_pinned_helm_diff_plugin():
    # kubernetes.core.helm checks a release's idempotence with `helm diff`; without the plugin it warns.
    listed = subprocess.run([os.path.join(CACHE, "helm"), "plugin", "list"], check=True, capture_output=True, text=True).stdout
    assert [line.split()[:2] for line in listed.splitlines()[1:]] == [["diff", pinned("HELM_DIFF_VERSION").lstrip("v")]]


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
