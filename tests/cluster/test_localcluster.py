"""The local cluster: real etcd, kube-apiserver, controller-manager, scheduler and Helm, Fluid's
real dataset/DataLoad and AlluxioRuntime controllers and mpi-operator; kwok-simulated V100 nodes
(simulated kubelets); a real Alluxio (tools/localcluster/alluxio.sh) answers the controllers'
execs into the master pods; simulated programs in the pods (the master's mount.sh over a local
stand-in of the under-store, DataLoad's script run with the real CLI, training)."""

import os
import signal
import subprocess

import pytest
import yaml
from kubernetes import client
from kubernetes.client.rest import ApiException

from ansible_collections.fluidops.accel.plugins.module_utils.tf_cnn_log import _lines as rank_lines
from ansible_collections.fluidops.accel.plugins.module_utils.tf_cnn_log import parse
from conftest import CACHE, NODES, cluster, pinned, wait_until
from test_real_alluxio import cli, master_info


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
    with open(os.path.join(CACHE, "run", "pids", "mpi-operator"), encoding="ascii") as handle:
        keeper = int(handle.read())
    log = os.path.join(CACHE, "run", "logs", "mpi-operator.log")

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


FLUID = ("data.fluid.io", "v1alpha1")


def create(api, plural, body, group=FLUID):
    return client.CustomObjectsApi(api).create_namespaced_custom_object(group[0], group[1], "default", plural, body)


def get(api, plural, name, group=FLUID):
    return client.CustomObjectsApi(api).get_namespaced_custom_object(group[0], group[1], "default", plural, name)


def dataset(name):
    return {"apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": {"name": name},
            "spec": {"mounts": [{"mountPoint": "oss://imagenet/data/", "name": name}]}}


def test_real_fluid_controllers_bind_a_dataset_once_its_alluxio_runtime_is_ready(api):
    create(api, "datasets", dataset("sim-imagenet"))
    create(api, "datasets", dataset("no-runtime"))
    create(api, "alluxioruntimes", {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "AlluxioRuntime", "metadata": {"name": "sim-imagenet"},
        "spec": {"replicas": 4, "tieredstore": {"levels": [{"mediumtype": "MEM", "path": "/dev/shm", "quota": "100Gi"}]}}})
    # Fluid's runtime controller requeues every 20 s while the master and then the workers start;
    # the cache states follow the phase in a later update.

    def bound_with_cache_states():
        status = get(api, "datasets", "sim-imagenet").get("status") or {}
        return status if status.get("phase") == "Bound" and (status.get("cacheStates") or {}).get("cacheCapacity") else None

    status = wait_until(bound_with_cache_states, seconds=240)
    # From `alluxio fsadmin report` of the real master: its two workers' MEM tiers (1Gi each, on
    # the hosts' ramfs), not the runtime's 4 x 100Gi, which would need V100 nodes.
    assert status["cacheStates"]["cacheCapacity"] == "%.2fGiB" % (master_info()["capacity"]["total"] / 2.0 ** 30)
    assert [c["reason"] for c in status["conditions"] if c["type"] == "Ready"] == ["DatasetReady"]
    runtime = get(api, "alluxioruntimes", "sim-imagenet")["status"]
    assert (runtime["masterPhase"], runtime["workerNumberReady"]) == ("Ready", 4)
    # The real objects behind it: the Helm release's StatefulSets, the PV/PVC the controller makes.
    apps = client.AppsV1Api(api)
    assert apps.read_namespaced_stateful_set("sim-imagenet-worker", "default").status.ready_replicas == 4
    # The controller makes the volume after the setup that bound the dataset.

    def claim():
        claims = client.CoreV1Api(api).list_namespaced_persistent_volume_claim(
            "default", field_selector="metadata.name=sim-imagenet").items
        return claims[0] if claims else None

    assert wait_until(claim, seconds=60).spec.volume_name == "default-sim-imagenet"
    # ufsTotal from `alluxio fs count /` in the metadata sync: the stand-in of oss://imagenet/data/
    # (ImageNet's layout at this machine's scale: 72 TFRecord shards of 512 KiB), which the
    # master pod's mount.sh mounted at /sim-imagenet.
    wait_until(lambda: get(api, "datasets", "sim-imagenet")["status"].get("ufsTotal") == "36.00MiB", seconds=120)
    assert "/sim-imagenet" in cli("fs", "mount")
    assert get(api, "datasets", "no-runtime")["status"]["phase"] == "NotBound"


def test_real_dataload_controller_runs_the_loader_job_while_the_cache_fills(api):
    create(api, "dataloads", {"apiVersion": "data.fluid.io/v1alpha1", "kind": "DataLoad", "metadata": {"name": "warmup"},
                              "spec": {"dataset": {"name": "sim-imagenet", "namespace": "default"}, "target": [{"path": "/"}]}})
    seen = []

    def complete():
        seen.append((get(api, "datasets", "sim-imagenet")["status"].get("cacheStates") or {}).get("cachedPercentage"))
        return get(api, "dataloads", "warmup").get("status", {}).get("phase") == "Complete"

    # The loader runs Fluid's script with the real `alluxio fs distributedLoad`; the DataLoad
    # controller looks at its Job every 20 s.
    wait_until(complete, seconds=240, every=0.5)
    # The dataset's figure follows at the runtime controller's next reconcile (at most 90 s later).

    def refreshed():
        states = get(api, "datasets", "sim-imagenet")["status"]["cacheStates"]
        seen.append(states.get("cachedPercentage"))
        return states if states["cachedPercentage"] == "100.0%" else None

    states = wait_until(refreshed, seconds=120)
    # Alluxio's own figure: what the master holds in its workers' tiers.
    assert states["cached"] == "%.2fMiB" % (master_info()["capacity"]["used"] / 2.0 ** 20)
    status = get(api, "dataloads", "warmup")["status"]
    assert [(c["type"], c["status"]) for c in status["conditions"]] == [("Complete", "True")]
    job = client.BatchV1Api(api).read_namespaced_job("warmup-loader-job", "default")
    assert job.status.succeeded == 1
    assert "distributedLoad on / ends" in client.CoreV1Api(api).read_namespaced_pod_log(
        wait_until(lambda: loader_pod(api, "warmup-loader-job")), "default")
    # Fluid's states came from the real master while it filled (sampled every 0.5 s, so how many
    # values show depends on the load's speed): never falling.
    percentages = [float(value.rstrip("%")) for value in seen if value and value.endswith("%") and value != "NaN%"]
    assert percentages == sorted(percentages) and percentages[-1] == 100.0


def loader_pod(api, job):
    pods = client.CoreV1Api(api).list_namespaced_pod("default", label_selector="job-name=%s" % job).items
    done = [p.metadata.name for p in pods if p.status.phase == "Succeeded"]
    return done[0] if done else None


def test_deleting_the_dataset_frees_its_cache_and_unmounts_it(api):
    # Fluid's clean-up (`alluxio fs free`, helm uninstall); the master pod goes, and with it its
    # mounts (all runtimes here share one Alluxio, so the simulator's mount.sh play unmounts).
    # Exclusive placement: the next test's workers need the nodes this runtime's workers hold.
    client.CustomObjectsApi(api).delete_namespaced_custom_object(*FLUID, "default", "datasets", "sim-imagenet")
    wait_until(lambda: "/sim-imagenet" not in cli("fs", "mount"), seconds=240)
    wait_until(lambda: master_info()["capacity"]["used"] == 0, seconds=120)


def test_real_mpi_operator_runs_the_launcher_job_and_serves_tf_cnn_benchmarks_logs(api):
    # no-runtime stays for the status report's gate (test_phases_warmup.py).
    command = ["mpirun", "--allow-run-as-root", "--tag-output", "-np", "32", "python", "tf_cnn_benchmarks.py"]
    template = {"spec": {"containers": [{"name": "mpi", "image": "horovod-benchmark", "command": command}]}}
    worker = {"spec": {"containers": [{"name": "mpi", "image": "horovod-benchmark"}]}}
    create(api, "mpijobs", {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "resnet50"},
                            "spec": {"slotsPerWorker": 8, "runPolicy": {"cleanPodPolicy": "Running"}, "mpiReplicaSpecs": {
                                "Launcher": {"replicas": 1, "template": template},
                                "Worker": {"replicas": 4, "template": worker}}}}, group=("kubeflow.org", "v2beta1"))
    core = client.CoreV1Api(api)

    def pods():
        return core.list_namespaced_pod("default", label_selector="training.kubeflow.org/job-name=resnet50").items

    def succeeded():
        conditions = (get(api, "mpijobs", "resnet50", group=("kubeflow.org", "v2beta1")).get("status") or {}).get("conditions", [])
        return {c["type"]: c["status"] for c in conditions}.get("Succeeded") == "True"

    wait_until(succeeded, seconds=120)
    conditions = get(api, "mpijobs", "resnet50", group=("kubeflow.org", "v2beta1"))["status"]["conditions"]
    assert [c["reason"] for c in conditions if c["type"] in ("Created", "Succeeded")] == ["MPIJobCreated", "MPIJobSucceeded"]
    # The launcher is a pod of the Job mpi-operator made; cleanPodPolicy Running takes the workers.
    assert client.BatchV1Api(api).read_namespaced_job("resnet50-launcher", "default").status.succeeded == 1
    remaining = wait_until(lambda: [p for p in pods() if p.metadata.labels["training.kubeflow.org/job-role"] == "launcher"]
                           if len(pods()) == 1 else None, seconds=60)
    launcher = remaining[0]
    assert launcher.status.phase == "Succeeded" and launcher.metadata.name.startswith("resnet50-launcher-")
    log = core.read_namespaced_pod_log(launcher.metadata.name, "default", container="mpi")
    # mpirun --tag-output: 32 ranks, each with its own step lines (some split across chunks).
    parsed = parse(log)
    assert parsed["tagged"] and parsed["ranks"] == 32
    assert {step["ranks_read"] for step in parsed["steps"]} == {32}
    # Every rank's total, read from its joined fragments: a line split across chunks still counts.
    assert {rank for rank, line in rank_lines(log) if line.startswith("total images/sec: ")} == set(range(32))
    assert parsed["total_images_per_sec"] and parsed["accuracy_top5"]
    assert "SIMULATED" in log
