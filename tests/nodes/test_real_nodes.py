"""Real nodes: the node hosts' kubelets run pods from images built here and served by the local
registry, on a routed pod network with cluster DNS; the GPUs are SIMULATED by a device plugin.
Fluid's chart runs its CSI plugin, and an AlluxioRuntime's master, worker and FUSE pods run
Alluxio from Fluid's runtime chart; a plain pod reads the dataset through CSI and FUSE."""

import hashlib
import json
import os
import subprocess

import pytest
import yaml
from kubernetes import client

from conftest import NODES, PARTS, read_sysctls, wait_until

KUBE = os.path.join(PARTS, "kube")
HELM = os.path.join(PARTS, "helm")
STATE = os.path.join(PARTS, "run", "alluxio")


def kubectl(kubeconfig, *args, stdin=None, check=True):
    done = subprocess.run([KUBE, "kubectl", "--kubeconfig", kubeconfig, *args], input=stdin, capture_output=True,
                          text=True, check=False)
    assert not check or done.returncode == 0, "kubectl %s: %s" % (" ".join(args), done.stderr)
    return done


def apply(kubeconfig, *objects):
    kubectl(kubeconfig, "apply", "-f", "-", stdin=yaml.safe_dump_all(objects))


def pod(name, image, command, node=None, volumes=(), limits=None):
    spec = {"restartPolicy": "Never",
            "containers": [{"name": "main", "image": image, "command": ["sh", "-c", command],
                            "volumeMounts": [{"name": volume, "mountPath": "/" + volume} for volume, _claim in volumes],
                            "resources": {"limits": limits or {}}}],
            "volumes": [{"name": volume, "persistentVolumeClaim": {"claimName": claim}} for volume, claim in volumes]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def ended(kubeconfig, kind, name, phases, seconds):
    """The object's status.phase once it is one of PHASES, read once per look."""
    def phase():
        value = kubectl(kubeconfig, "get", kind, name, "-o", "jsonpath={.status.phase}").stdout
        return value if value in phases else None
    return wait_until(phase, seconds, every=1, what="%s %s ending" % (kind, name))


def finished(kubeconfig, name, seconds=300):
    """The pod's log once it has ended; its phase must be Succeeded."""
    phase = ended(kubeconfig, "pod", name, ("Succeeded", "Failed"), seconds)
    log = kubectl(kubeconfig, "logs", name).stdout
    assert phase == "Succeeded", "pod %s %s:\n%s\n%s" % (name, phase, log, kubectl(kubeconfig, "describe", "pod", name).stdout[-3000:])
    return log


def test_four_real_nodes_of_containerd_and_the_pinned_kubelet(api):
    nodes = {node.metadata.name: node for node in client.CoreV1Api(api).list_node().items}
    assert sorted(nodes) == NODES
    for node in nodes.values():
        assert node.status.node_info.kubelet_version == "v1.33.13"
        assert node.status.node_info.container_runtime_version.startswith("containerd://1.7.")
        assert {c.type: c.status for c in node.status.conditions}["Ready"] == "True"
        assert node.metadata.labels["aliyun.accelerator/nvidia_name"] == "Tesla-V100-SXM2-16GB"
        assert "kwok.x-k8s.io/node" not in (node.metadata.annotations or {})


def test_each_kubelet_may_change_only_its_own_node(kubeconfig):
    """Node authorization: gpu-node-1's credentials patch gpu-node-1, and are refused gpu-node-2."""
    own = os.path.join(PARTS, "run", "nodes", "gpu-node-1", "kubelet.kubeconfig")
    patch = json.dumps({"metadata": {"annotations": {"fluidops.test/touched": "yes"}}})
    assert subprocess.run([KUBE, "kubectl", "--kubeconfig", own, "patch", "node", "gpu-node-1", "-p", patch],
                          capture_output=True, text=True, check=False).returncode == 0
    refused = subprocess.run([KUBE, "kubectl", "--kubeconfig", own, "patch", "node", "gpu-node-2", "-p", patch],
                             capture_output=True, text=True, check=False)
    assert refused.returncode != 0 and "forbidden" in refused.stderr.lower(), refused.stderr
    kubectl(kubeconfig, "annotate", "node", "gpu-node-1", "fluidops.test/touched-")


def test_the_kubelets_left_the_machines_sysctls_alone(kubeconfig, sysctls_before):  # pylint: disable=unused-argument
    assert read_sysctls() == sysctls_before


def test_simulated_gpus_are_allocated_to_a_pod(kubeconfig, images):
    allocatable = kubectl(kubeconfig, "get", "nodes", "-o", r"jsonpath={.items[*].status.allocatable.nvidia\.com/gpu}").stdout
    assert allocatable.split() == ["8"] * 4
    apply(kubeconfig, pod("gpus", images["alluxio"], "echo $NVIDIA_VISIBLE_DEVICES", limits={"nvidia.com/gpu": 2}))
    devices = finished(kubeconfig, "gpus").strip().split(",")
    assert len(devices) == 2 and all(device.startswith("GPU-simulated-gpu-node-") for device in devices), devices


def test_pods_on_two_nodes_reach_each_other_and_the_api_server_by_name(kubeconfig, images):
    """Cluster DNS names the kubernetes Service; kube-proxy takes its ClusterIP to the API server
    through the nodes' masquerade; a pod on gpu-node-3 reaches CoreDNS wherever it runs."""
    command = ("getent hosts kubernetes.default.svc.cluster.local && "
               "timeout 10 bash -c 'exec 3<>/dev/tcp/kubernetes.default.svc.cluster.local/443' && echo reached")
    apply(kubeconfig, pod("reach", images["alluxio"], command, node="gpu-node-3"))
    log = finished(kubeconfig, "reach")
    assert "10.96.0.1" in log and "reached" in log, log


def test_every_pod_runs_an_image_of_the_local_registry_pinned_by_digest(kubeconfig, images):
    pods = json.loads(kubectl(kubeconfig, "get", "pods", "--all-namespaces", "-o", "json").stdout)["items"]
    digests = {ref.split("@", 1)[1] for ref in images.values()}
    registry = next(iter(images.values())).split("/", 1)[0]
    assert pods
    for item in pods:
        for container in item["spec"]["containers"]:
            assert container["image"].startswith(registry + "/fluidops/") and "@sha256:" in container["image"], container["image"]
        for status in item["status"].get("containerStatuses", []):
            assert status["imageID"].rsplit("@", 1)[1] in digests, status


@pytest.fixture(scope="module")
def fluid(kubeconfig, images):
    """Fluid's chart with its CSI plugin running (the controllers are the cluster's, out of cluster:
    the chart's are scaled to none), then a dataset over a local directory with an AlluxioRuntime
    whose pods run the Alluxio image, Bound."""
    def split(ref):  # the chart's prefix, name, tag
        prefix, rest = ref.rsplit("/", 1)
        name, tag = rest.split(":", 1)
        return {"imagePrefix": prefix, "imageName": name, "imageTag": tag}
    values = {"crdUpgrade": {"enabled": False}, "webhook": {"enabled": False}, "dataset": {"replicas": 0},
              "fluidapp": {"enabled": False, "replicas": 0},
              "runtime": {"alluxio": {"enabled": True, "replicas": 0}, "jindo": {"enabled": False}},
              "csi": {"registrar": split(images["csi-registrar"]), "plugins": split(images["fluid-csi"])}}
    subprocess.run([HELM, "--kubeconfig", kubeconfig, "upgrade", "--install", "fluid", os.path.join(PARTS, "fluid", "fluid-1.0.8.tgz"),
                    "--namespace", "fluid-system", "--create-namespace", "--wait", "--timeout", "300s", "-f", "-"],
                   input=yaml.safe_dump(values), text=True, check=True, capture_output=True)
    files = os.path.join(STATE, "standins", "real-nodes", "train")
    os.makedirs(files, exist_ok=True)
    sums = {}
    for index in range(12):
        data = hashlib.sha256(b"shard %d" % index).digest() * (4096 + 97 * index)
        with open(os.path.join(files, "part-%02d" % index), "wb") as handle:
            handle.write(data)
        sums["part-%02d" % index] = hashlib.md5(data).hexdigest()
    image, tag = split(images["alluxio"])["imagePrefix"] + "/alluxio", split(images["alluxio"])["imageTag"]
    apply(kubeconfig,
          {"apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": {"name": "real", "namespace": "default"},
           "spec": {"mounts": [{"mountPoint": "local:///standins/real-nodes", "name": "real"}]}},
          {"apiVersion": "data.fluid.io/v1alpha1", "kind": "AlluxioRuntime", "metadata": {"name": "real", "namespace": "default"},
           "spec": {"replicas": 1, "alluxioVersion": {"image": image, "imageTag": tag},
                    "master": {"jvmOptions": ["-Xmx400m", "-XX:ActiveProcessorCount=2"]},
                    "jobMaster": {"jvmOptions": ["-Xmx300m"]},
                    "worker": {"jvmOptions": ["-Xmx400m", "-XX:MaxDirectMemorySize=256m"]},
                    "jobWorker": {"jvmOptions": ["-Xmx300m"]},
                    "fuse": {"image": image, "imageTag": tag, "jvmOptions": ["-Xmx400m", "-XX:MaxDirectMemorySize=256m"]},
                    "tieredstore": {"levels": [{"mediumtype": "MEM", "path": "/dev/shm", "quota": "32Mi",
                                                "high": "0.95", "low": "0.7"}]}}})
    wait_until(lambda: kubectl(kubeconfig, "get", "dataset", "real", "-o", "jsonpath={.status.phase}").stdout == "Bound",
               600, every=2, what="the dataset Bound")
    return sums


def test_the_csi_plugin_runs_on_every_node_and_the_kubelets_registered_it(kubeconfig, fluid):  # pylint: disable=redefined-outer-name,unused-argument
    for node in NODES:
        drivers = kubectl(kubeconfig, "get", "csinode", node, "-o", "jsonpath={.spec.drivers[*].name}").stdout
        assert drivers.split() == ["fuse.csi.fluid.io"], (node, drivers)


def test_a_pod_reads_the_dataset_through_csi_and_fuse_byte_for_byte(kubeconfig, fluid, images):  # pylint: disable=redefined-outer-name
    apply(kubeconfig, pod("reader", images["alluxio"], "cd /data/real/train && md5sum part-*", volumes=[("data", "real")]))
    read = dict(reversed(line.split()) for line in finished(kubeconfig, "reader", 600).splitlines())
    assert read == fluid
    # Fluid's controllers learnt the dataset's size from the real master's `alluxio fs count` (exec).
    ufs_total = kubectl(kubeconfig, "get", "dataset", "real", "-o", "jsonpath={.status.ufsTotal}").stdout
    assert ufs_total and ufs_total != "0.00B", ufs_total


def test_alluxio_runs_with_the_runtime_s_settings_in_its_processes(kubeconfig, fluid):  # pylint: disable=redefined-outer-name,unused-argument
    """Read from the running JVMs' command lines, not from the manifests."""
    def java(pod_name, container):
        return kubectl(kubeconfig, "exec", pod_name, "-c", container, "--", "sh", "-c",
                       "tr '\\0' ' ' < /proc/$(pgrep -f java | head -1)/cmdline").stdout
    master = java("real-master-0", "alluxio-master")
    assert "alluxio.master.AlluxioMaster" in master and "-Xmx400m" in master and "-XX:ActiveProcessorCount=2" in master
    worker = java("real-worker-0", "alluxio-worker")
    assert "alluxio.worker.AlluxioWorker" in worker and "-XX:MaxDirectMemorySize=256m" in worker
    fuse_pod = kubectl(kubeconfig, "get", "pods", "-l", "role=alluxio-fuse", "-o", "jsonpath={.items[0].metadata.name}").stdout
    fuse = java(fuse_pod, "alluxio-fuse")
    assert "alluxio.fuse.AlluxioFuse" in fuse and "kernel_cache" in fuse and "/runtime-mnt/alluxio/default/real/alluxio-fuse" in fuse


def test_a_fuse_crash_under_a_reading_pod_and_the_runbook_s_fix(kubeconfig, fluid, images):  # pylint: disable=redefined-outer-name
    """docs/runbooks/troubleshooting/fuse-pod-or-container-creating.md: the FUSE process dies on
    the node under a pod that reads the dataset; the pod sees `Transport endpoint is not connected`
    (Fluid's chart ships FuseRecovery=false); the runbook's fix (stop the pods, a new FUSE pod,
    start them again) gives it the data back."""
    apply(kubeconfig, pod("holder", images["alluxio"], "sleep infinity", node="gpu-node-3", volumes=[("data", "real")]))
    kubectl(kubeconfig, "wait", "--for=condition=Ready", "pod/holder", "--timeout=300s")
    fuse_pod = kubectl(kubeconfig, "get", "pods", "-l", "role=alluxio-fuse", "--field-selector", "spec.nodeName=gpu-node-3",
                       "-o", "jsonpath={.items[0].metadata.name}").stdout
    assert fuse_pod
    # The crash: the JVM killed on the node, as the OOM killer would.
    subprocess.run(["podman", "exec", "gpu-node-3", "pkill", "-KILL", "-f", "alluxio.fuse.AlluxioFuse"], check=True)
    wait_until(lambda: "not connected" in kubectl(kubeconfig, "exec", "holder", "--", "ls", "/data/real/train", check=False).stderr,
               120, every=1, what="the reading pod's `Transport endpoint is not connected`")
    # The runbook's fix, by its command: the pods that use the dataset, then the node's FUSE pod.
    kubectl(kubeconfig, "delete", "pod", "holder", "--wait=true")
    kubectl(kubeconfig, "delete", "pod", "-l", "role=alluxio-fuse", "--field-selector", "spec.nodeName=gpu-node-3", "--wait=true")
    apply(kubeconfig, pod("reader-again", images["alluxio"], "cd /data/real/train && md5sum part-*", node="gpu-node-3",
                          volumes=[("data", "real")]))
    read = dict(reversed(line.split()) for line in finished(kubeconfig, "reader-again", 600).splitlines())
    assert read == fluid


def test_a_dataload_s_loader_pod_fills_the_cache_with_distributed_load(kubeconfig, fluid):  # pylint: disable=redefined-outer-name,unused-argument
    """Fluid's DataLoad controller runs its chart's loader Job; the loader pod, on a real node, runs
    alluxio_dataload.sh with the Alluxio image's CLI against the runtime's real master."""
    apply(kubeconfig, {"apiVersion": "data.fluid.io/v1alpha1", "kind": "DataLoad", "metadata": {"name": "real-warmup", "namespace": "default"},
                       "spec": {"dataset": {"name": "real", "namespace": "default"}, "target": [{"path": "/real"}]}})
    phase = ended(kubeconfig, "dataload", "real-warmup", ("Complete", "Failed"), 600)
    loader = json.loads(kubectl(kubeconfig, "get", "pods", "-l", "role=dataload-pod", "-o", "json").stdout)["items"]
    assert loader and loader[0]["spec"]["nodeName"] in NODES
    log = kubectl(kubeconfig, "logs", loader[0]["metadata"]["name"]).stdout
    assert phase == "Complete", log
    assert "distributedLoad" in log or "Successfully loaded" in log, log
    wait_until(lambda: kubectl(kubeconfig, "get", "dataset", "real", "-o", "jsonpath={.status.cacheStates.cachedPercentage}").stdout
               == "100.0%", 120, every=2, what="the dataset 100% cached")
