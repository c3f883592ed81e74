"""site.yml against the local cluster, whole (nodes on the podman hosts, node labels, Fluid
through Helm, datasets, warm-up, training): real apiserver, Helm, hosts, Fluid controllers and
mpi-operator; simulated kubelets and what runs in the pods (Alluxio master CLI, loader, training)."""

import json
import os
import subprocess

from kubernetes import client

from conftest import CACHE, wait_until
from playbook import run_playbook


def node(api, name="gpu-node-1"):
    return client.CoreV1Api(api).read_node(name)


def test_first_run_labels_the_nodes_and_deploys_fluid(api, kubeconfig, site_run):
    returncode, output = site_run
    assert returncode == 0, output[-3000:]
    labelled = node(api)
    assert labelled.metadata.labels["fluidops.io/pool"] == "training"
    assert labelled.metadata.labels["aliyun.accelerator/nvidia_name"] == "Tesla-V100-SXM2-16GB"
    assert [(t.key, t.effect) for t in labelled.spec.taints or [] if t.key.startswith("fluidops.io/")] == [
        ("fluidops.io/dedicated", "NoSchedule")]
    deployments = {d.metadata.name: d for d in client.AppsV1Api(api).list_namespaced_deployment("fluid-system").items}
    assert deployments["dataset-controller"].status.available_replicas == 1
    releases = json.loads(subprocess.run(
        [os.path.join(CACHE, "helm"), "list", "-n", "fluid-system", "-o", "json", "--kubeconfig", kubeconfig],
        check=True, capture_output=True, text=True).stdout)
    assert [(r["name"], r["chart"], r["status"]) for r in releases] == [("fluid", "fluid-1.0.8", "deployed")]
    crds = {c.metadata.name for c in client.ApiextensionsV1Api(api).list_custom_resource_definition().items}
    assert {"datasets.data.fluid.io", "alluxioruntimes.data.fluid.io", "jindoruntimes.data.fluid.io", "dataloads.data.fluid.io"} <= crds


def test_first_run_creates_the_local_inventorys_dataset_bound_with_its_secret(api):
    objects = client.CustomObjectsApi(api)
    dataset = objects.get_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", "imagenet")
    assert dataset["status"]["phase"] == "Bound"
    mount = dataset["spec"]["mounts"][0]
    assert mount["mountPoint"] == "oss://imagenet/data/"
    assert {o["valueFrom"]["secretKeyRef"]["name"] for o in mount["encryptOptions"]} == {"imagenet-oss"}
    assert "dummy" not in json.dumps(dataset)  # the keys stay in the Secret
    secret = client.CoreV1Api(api).read_namespaced_secret("imagenet-oss", "default")
    assert set(secret.data) == {"fs.oss.accessKeyId", "fs.oss.accessKeySecret"}
    runtime = objects.get_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "alluxioruntimes", "imagenet")
    assert runtime["spec"]["replicas"] == 4  # the number of GPU nodes
    assert runtime["spec"]["properties"]["alluxio.master.metastore"] == "ROCKS"  # the dl-training profile
    assert runtime["spec"]["tieredstore"]["levels"][0]["mediumtype"] == "MEM"


def test_nfs_baseline_claim_is_bound_by_the_real_controller_manager(api):
    core = client.CoreV1Api(api)
    volume = core.read_persistent_volume("nfs-imagenet")
    assert volume.spec.mount_options == ["vers=3", "nolock", "proto=tcp", "rsize=1048576", "wsize=1048576", "hard",
                                         "timeo=600", "retrans=2", "noresvport", "nfsvers=4.1"]
    assert volume.spec.access_modes == ["ReadOnlyMany"] and volume.spec.capacity["storage"] == "150Gi"

    def bound_claim():
        claim = core.read_namespaced_persistent_volume_claim("nfs-imagenet", "default")
        return claim if claim.status.phase == "Bound" else None

    assert wait_until(bound_claim, seconds=30).spec.volume_name == "nfs-imagenet"


def test_dropped_labels_and_taints_are_removed_when_asked(api):
    # The node labels phase alone: the others do not touch nodes.
    returncode, output = run_playbook("playbooks/node_labels.yml", extra_vars={"node_labels_remove_dropped": True})
    assert returncode == 0, output[-3000:]
    cleaned = node(api)
    assert "fluidops.io/pool" not in cleaned.metadata.labels
    assert not [t for t in cleaned.spec.taints or [] if t.key.startswith("fluidops.io/")]
    assert cleaned.metadata.labels["aliyun.accelerator/nvidia_name"] == "Tesla-V100-SXM2-16GB"
