"""site.yml against the local cluster's real nodes, whole (nodes on the podman hosts, node
labels, Fluid through Helm, datasets, warm-up, training), with the local inventory: real
apiserver, Helm, hosts, kubelets, Fluid controllers, Alluxio pods and mpi-operator. Then the
deploy runbook's commands on the deployment, and the seeds' NFS baseline volume."""

import json
import os
import re
import subprocess

from kubernetes import client

from conftest import CACHE, POOL, wait_until
from playbook import run_playbook
from pods import kubectl
from runbook_shell import run

TAINT = {"key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}


def node(api, name="gpu-node-1"):
    return client.CoreV1Api(api).read_node(name)


def test_first_run_labels_the_nodes_and_deploys_fluid(api, kubeconfig, site_run):
    assert site_run.returncode == 0, site_run.output[-3000:]
    labelled = node(api)
    assert labelled.metadata.labels["fluidops.io/pool"] == "training"
    assert labelled.metadata.labels["aliyun.accelerator/nvidia_name"] == "Tesla-V100-SXM2-16GB"
    deployments = {d.metadata.name: d for d in client.AppsV1Api(api).list_namespaced_deployment("fluid-system").items}
    assert deployments["dataset-controller"].status.available_replicas == 1
    releases = json.loads(subprocess.run(
        [os.path.join(CACHE, "helm"), "list", "-n", "fluid-system", "-o", "json", "--kubeconfig", kubeconfig],
        check=True, capture_output=True, text=True).stdout)
    assert [(r["name"], r["chart"], r["status"]) for r in releases] == [("fluid", "fluid-1.0.8", "deployed")]
    crds = {c.metadata.name for c in client.ApiextensionsV1Api(api).list_custom_resource_definition().items}
    assert {"datasets.data.fluid.io", "alluxioruntimes.data.fluid.io", "jindoruntimes.data.fluid.io", "dataloads.data.fluid.io"} <= crds


def test_first_run_creates_the_local_inventorys_dataset_bound_with_its_profile(api, site_run):  # pylint: disable=unused-argument
    objects = client.CustomObjectsApi(api)
    dataset = objects.get_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "datasets", "imagenet")
    assert dataset["status"]["phase"] == "Bound"
    # On the S3 stand-in, its keys from the Secret the bundle made of datasets_s3_secrets.
    [mount] = dataset["spec"]["mounts"]
    assert mount["mountPoint"] == "s3://imagenet/"
    assert [(option["name"], option["valueFrom"]["secretKeyRef"]["name"]) for option in mount["encryptOptions"]] == [
        ("aws.accessKeyId", "imagenet-s3"), ("aws.secretKey", "imagenet-s3")]
    runtime = objects.get_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "alluxioruntimes", "imagenet")
    assert runtime["spec"]["replicas"] == 1  # the inventory's, not one per GPU node
    assert runtime["spec"]["properties"]["alluxio.master.metastore"] == "ROCKS"  # the dl-training profile
    assert runtime["spec"]["tieredstore"]["levels"][0]["mediumtype"] == "MEM"


def test_the_deploy_runbook_on_the_deployed_cluster_ends_as_it_says_and_changes_nothing(shell, site_run):  # pylint: disable=unused-argument
    # docs/runbooks/deploy.md: every host answers; site.yml again ends with the runbook's lines,
    # and, every phase converging, no task on any host changes.
    run(shell, "deploy-reach")
    output = run(shell, "deploy-site")
    recap = dict(re.findall(r"^(\S+)\s+: ok=\d+\s+changed=(\d+)", output, re.MULTILINE))
    assert sorted(recap) == ["gpu-node-1", "gpu-node-2", "gpu-node-3", "gpu-node-4", "localhost"], output[-3000:]
    assert set(recap.values()) == {"0"}, output[-6000:]


def test_the_seeds_nfs_baseline_volume_is_bound_by_the_real_controller_manager(api, kubeconfig, site_run):  # pylint: disable=unused-argument
    # The seeds' NFS baseline (inventory/local-simulated's) beside the local inventory's datasets:
    # its PV with the seeds' mount options, bound to its claim. No pod mounts it: this kernel has no
    # NFS client, and the local inventory's baseline is the ThinRuntime one.
    core = client.CoreV1Api(api)
    nfs = {"name": "nfs-imagenet", "server": "nfs.local.invalid", "path": "/exports/imagenet", "data_subdir": "imagenet"}
    try:
        returncode, output = run_playbook("playbooks/datasets.yml", extra_vars={"datasets_nfs_volumes": [nfs]})
        assert returncode == 0, output[-3000:]
        volume = core.read_persistent_volume("nfs-imagenet")
        assert volume.spec.mount_options == ["vers=3", "nolock", "proto=tcp", "rsize=1048576", "wsize=1048576", "hard",
                                             "timeo=600", "retrans=2", "noresvport", "nfsvers=4.1"]
        assert volume.spec.access_modes == ["ReadOnlyMany"] and volume.spec.capacity["storage"] == "150Gi"
        assert (volume.spec.nfs.server, volume.spec.nfs.path) == ("nfs.local.invalid", "/exports/imagenet")

        def bound_claim():
            claim = core.read_namespaced_persistent_volume_claim("nfs-imagenet", "default")
            return claim if claim.status.phase == "Bound" else None

        assert wait_until(bound_claim, seconds=60).spec.volume_name == "nfs-imagenet"
    finally:
        # Not in the local inventory: its teardown would leave them.
        kubectl(kubeconfig, "delete", "pvc,pv", "nfs-imagenet", "--ignore-not-found")


def test_dropped_labels_and_taints_are_removed_when_asked(api, site_run):  # pylint: disable=unused-argument
    # The node labels phase alone: the others do not touch nodes. The taint is on for as short as
    # can be: the pods the later tests start do not tolerate it.
    returncode, output = run_playbook("playbooks/node_labels.yml", extra_vars=dict(POOL, fluidops_gpu_node_taints=[TAINT]))
    assert returncode == 0, output[-3000:]
    tainted = node(api)
    assert [(t.key, t.effect) for t in tainted.spec.taints or [] if t.key.startswith("fluidops.io/")] == [
        ("fluidops.io/dedicated", "NoSchedule")]
    returncode, output = run_playbook("playbooks/node_labels.yml", extra_vars={"node_labels_remove_dropped": True})
    assert returncode == 0, output[-3000:]
    cleaned = node(api)
    assert "fluidops.io/pool" not in cleaned.metadata.labels
    assert not [t for t in cleaned.spec.taints or [] if t.key.startswith("fluidops.io/")]
    assert cleaned.metadata.labels["aliyun.accelerator/nvidia_name"] == "Tesla-V100-SXM2-16GB"
