"""What only the whole inventory shows: references, duplicates, namespaces, cache room, pinned versions."""

import pytest

from ansible_collections.fluidops.accel.plugins.filter.inventory import image_problems, inventory_problems, pinned_problems

TIER = {"medium": "MEM", "path": "/ram/alluxio", "quota": "60Gi"}


def dataset(name, claim="nfs-imagenet", **extra):
    return dict({"name": name, "mounts": [{"mount_point": "pvc://" + claim}], "runtime": {"tiers": [TIER]}}, **extra)


def inventory(**overrides):
    base = {"namespace": "default", "engine": "fluid", "datasets": [dataset("imagenet")],
            "nfs_volumes": [{"name": "nfs-imagenet", "server": "nas", "path": "/"}], "oss_secrets": {}, "external_claims": [],
            "alluxio_tiers": [], "warmup_names": [], "node_names": ["gpu-1", "gpu-2"],
            "node_cache_mounts": [[{"path": "/ram/alluxio", "fstype": "ramfs", "size": "100Gi"}]] * 2}
    base.update(overrides)
    return base


def test_a_consistent_inventory_has_no_problem():
    assert inventory_problems(inventory()) == []


@pytest.mark.parametrize("overrides, message", [
    ({"datasets": [dataset("imagenet"), dataset("imagenet")]},
     "datasets_list[1].name=imagenet is already used by datasets_list[0] in namespace default"),
    ({"datasets": [dataset("nfs-imagenet", claim="other")], "external_claims": ["other"]},
     "datasets_nfs_volumes[0].name=nfs-imagenet is already used by datasets_list[0] in namespace default"),
    ({"datasets": [dict(dataset("imagenet"), mounts=[{"mount_point": "pvc://nfs-imagenet", "name": "a"},
                                                     {"mount_point": "pvc://nfs-imagenet/val", "name": "a"}])]},
     "datasets_list[0] (imagenet).mounts name a more than once"),
    ({"datasets": [dataset("imagenet", claim="nfs-imagenett")]},
     "datasets_list[0] (imagenet).mounts[0].mount_point=pvc://nfs-imagenett names the claim nfs-imagenett, which nothing declares "
     "in namespace default: add it to datasets_nfs_volumes, or to datasets_external_claims"),
    ({"datasets": [dataset("imagenet", namespace="team-a")]},
     "names the claim nfs-imagenet, which nothing declares in namespace team-a"),
    ({"datasets": [dataset("imagenet", claim="imagenet")]}, "mount_point=pvc://imagenet is the dataset's own claim"),
    ({"warmup_names": ["imagenett"]}, "warmup_datasets names imagenett, which is not a dataset of datasets_list (imagenet)"),
    ({"namespace": "Team_A"}, "fluidops_namespace=Team_A is not a namespace name"),
    ({"datasets": [dataset("imagenet", namespace="a" * 64)]}, "datasets_list[0].namespace=%s is not a namespace name" % ("a" * 64)),
    ({"datasets": [dataset("imagenet", runtime={"tiers": [dict(TIER, quota="150Gi")]})]},
     "datasets_list[0] (imagenet).runtime.tiers[0].quota=150Gi puts 150.00GiB on /ram/alluxio, more than the cache mount "
     "gpu_node_cache_mounts[0].size=100Gi that the gpu_node role makes there on gpu-1, gpu-2: lower the quota"),
    ({"datasets": [dataset("imagenet", placement="Shared"), dataset("val", placement="Shared")]},
     "datasets_list[0] (imagenet).runtime.tiers (60.00GiB), datasets_list[1] (val).runtime.tiers (60.00GiB) share the cache mount "
     "/ram/alluxio and their quotas add up to 120.00GiB, more than its gpu_node_cache_mounts[0].size=100Gi on gpu-1, gpu-2"),
    ({"engine": "alluxio", "datasets": [], "alluxio_tiers": [dict(TIER, path="/ram/alluxio/a,/ram/alluxio/b", quota="300Gi")]},
     "alluxio_tiers[0].quota=300Gi puts 300.00GiB on /ram/alluxio"),
])
def test_inventory_problem_names_the_variable_the_value_and_what_is_allowed(overrides, message):
    problems = inventory_problems(inventory(**overrides))
    assert any(message in problem for problem in problems), problems


def test_exclusive_datasets_on_one_mount_are_checked_one_by_one():
    # Fluid's default placement gives each Exclusive dataset's workers nodes of their own.
    assert inventory_problems(inventory(datasets=[dataset("imagenet"), dataset("val")])) == []


def test_a_tier_off_the_cache_mounts_and_a_declared_external_claim_pass():
    assert inventory_problems(inventory(datasets=[dataset("imagenet", claim="made-elsewhere", runtime={"tiers": [
        dict(TIER, path="/dev/shm", quota="500Gi")]})], external_claims=["made-elsewhere"])) == []


@pytest.mark.parametrize("value, pinned", [("1.0.8", True), ("latest", False), ("", False), ("^1.0", False), ("1.x", False),
                                           (">=1.0.0", False), ("v1.0.8", True)])
def test_chart_versions_must_be_pinned(value, pinned):
    assert (pinned_problems({"fluid_chart_version": [value, "1.0.8"]}) == []) is pinned


@pytest.mark.parametrize("image, pinned", [("horovod:0.18.1-tf1.14.0-mxnet1.5.0", True), ("horovod", False), ("horovod:latest", False),
                                           ("registry:5000/horovod", False), ("registry:5000/horovod:1.2", True),
                                           ("horovod@sha256:" + "a" * 64, True)])
def test_images_must_pin_a_tag_or_a_digest(image, pinned):
    assert (image_problems({"training_image": image}) == []) is pinned
