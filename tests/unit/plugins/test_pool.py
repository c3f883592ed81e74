"""GPU nodes joining or leaving the pool: which runtimes they change, and what runs on them."""

import pytest

from ansible_collections.fluidops.accel.plugins.filter.dataset_objects import fluid_dataset_manifests
from ansible_collections.fluidops.accel.plugins.filter.pods import pods_in_the_way
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.pool import covers, pool_runtimes
from ansible_collections.fluidops.accel.tests.unit.plugins.test_fluid_manifests import CONTEXT, pvc_dataset

V100 = {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB", "kubernetes.io/hostname": "gpu-node-5"}
A100 = {"aliyun.accelerator/nvidia_name": "A100", "kubernetes.io/hostname": "gpu-node-6"}


def manifests(items, count):
    return fluid_dataset_manifests(items, dict(CONTEXT, gpu_node_count=count))["manifests"]


def test_a_runtime_with_default_replicas_follows_the_pool_and_an_explicit_one_stays():
    items = [dict(pvc_dataset(), name="follows", placement="Shared"), dict(pvc_dataset(replicas=2), name="fixed", placement="Shared")]
    assert pool_runtimes(manifests(items, 5), [V100]) == [
        {"namespace": "default", "name": "fixed", "kind": "AlluxioRuntime", "replicas": 2},
        {"namespace": "default", "name": "follows", "kind": "AlluxioRuntime", "replicas": 5}]


def test_only_runtimes_whose_affinity_covers_the_node_and_never_a_thin_one():
    items = [dict(pvc_dataset(), name="v100s", placement="Shared"),
             dict(pvc_dataset(), name="a100s", placement="Shared", node_affinity={"aliyun.accelerator/nvidia_name": ["A100"]}),
             dict(pvc_dataset(), name="anywhere", placement="Shared", node_affinity={}),
             {"name": "baseline", "mounts": [{"mount_point": "pvc://c"}], "runtime": {"type": "thin", "thin_profile": "p"}}]
    context = dict(CONTEXT, gpu_node_count=4, thin_profiles=[{"name": "p", "file_system_type": "fuse.x", "image": "x:1"}])
    built = fluid_dataset_manifests(items, context)["manifests"]
    assert [r["name"] for r in pool_runtimes(built, [A100])] == ["a100s", "anywhere"]
    assert [r["name"] for r in pool_runtimes(built, [V100])] == ["anywhere", "v100s"]
    assert [r["name"] for r in pool_runtimes(built, [{}])] == ["anywhere"]


@pytest.mark.parametrize("expression, labels, expected", [
    ({"key": "k", "operator": "In", "values": ["a", "b"]}, {"k": "b"}, True),
    ({"key": "k", "operator": "In", "values": ["a"]}, {}, False),
    ({"key": "k", "operator": "NotIn", "values": ["a"]}, {"k": "b"}, True),
    ({"key": "k", "operator": "Exists"}, {"k": ""}, True),
    ({"key": "k", "operator": "DoesNotExist"}, {"k": ""}, False)])
def test_a_node_covers_a_dataset_as_the_scheduler_reads_its_affinity(expression, labels, expected):
    dataset = {"spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [expression]}]}}}}
    assert covers(dataset, labels) is expected


def test_terms_are_ored_and_their_expressions_anded():
    terms = [{"matchExpressions": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}]},
             {"matchExpressions": [{"key": "c", "operator": "Exists"}]}]
    dataset = {"spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": terms}}}}
    assert [covers(dataset, labels) for labels in ({"a": "", "b": ""}, {"a": ""}, {"c": ""})] == [True, False, True]


def a_pod(name, node, phase="Running", labels=None, claim=None, namespace="default"):
    volumes = [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}] if claim else []
    return {"metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
            "spec": {"nodeName": node, "volumes": volumes}, "status": {"phase": phase}}


def test_training_pods_and_the_datasets_users_are_in_the_way_and_nothing_else():
    pods = [a_pod("job-worker-0", "gpu-node-4", labels={"training.kubeflow.org/job-name": "resnet"}),
            a_pod("notebook", "gpu-node-4", claim="imagenet"),
            a_pod("other-claim", "gpu-node-4", claim="scratch"),
            a_pod("done", "gpu-node-4", phase="Succeeded", labels={"training.kubeflow.org/job-name": "old"}),
            a_pod("imagenet-fuse-x", "gpu-node-4", labels={"role": "alluxio-fuse"})]
    found = pods_in_the_way(pods, [{"claim": "imagenet", "namespace": "default"}])
    assert [(p["name"], p["job"], p["claims"]) for p in found] == [("job-worker-0", "resnet", []), ("notebook", None, ["imagenet"])]
    assert pods_in_the_way([], [{"claim": "imagenet", "namespace": "default"}]) == []


def test_only_the_runtimes_of_datasets_the_cluster_has_when_it_is_given():
    built = manifests([dict(pvc_dataset(), name="made", placement="Shared"), dict(pvc_dataset(), name="not-yet", placement="Shared")], 4)
    made = [{"metadata": {"name": "made", "namespace": "default"}}, {"metadata": {"name": "not-yet", "namespace": "other"}}]
    assert [r["name"] for r in pool_runtimes(built, [V100], made)] == ["made"]
    assert pool_runtimes(built, [V100], []) == []
