"""The images the bundle deploys: playbooks/images.yml lists them from the charts rendered with the
inventory's values, and one setting, fluidops_image_registry, sends every one to a mirror, in the
list and in what the bundle deploys (render mode's files). Touches no cluster and no host."""

import os

import pytest
import yaml

from playbook import LOCAL_CHARTS, REPO, folded, run_playbook

HERE = os.path.dirname(os.path.abspath(__file__))
V100 = os.path.join(REPO, "inventory", "v100-cluster")
SEED004 = os.path.join(HERE, "inventories", "seed004")
MIRROR = "mirror.example:5000/gpu-site"
TRAINING = "registry.cn-hangzhou.aliyuncs.com/tensorflow-samples/horovod-benchmark-dawnbench-v2"


def listed(inventory, path, **extra_vars):
    returncode, output = run_playbook("playbooks/images.yml", inventory=inventory,
                                      extra_vars=dict(LOCAL_CHARTS, fluidops_images_file=str(path), **extra_vars))
    assert returncode == 0, output
    with open(path, encoding="utf-8") as handle:
        return handle.read().splitlines()


def path_of(reference):
    """The reference without its registry (Docker Hub's have none)."""
    first, _slash, rest = reference.partition("/")
    return rest if "." in first or ":" in first else reference


@pytest.fixture(scope="module")
def v100_images(tmp_path_factory):
    return listed(V100, tmp_path_factory.mktemp("images") / "v100.txt")


def test_the_list_holds_fluid_s_csi_its_controllers_the_runtime_and_the_training(v100_images):
    assert v100_images == sorted(set(v100_images))
    assert "fluidcloudnative/fluid-csi:v1.0.8-6533239" in v100_images
    assert "fluidcloudnative/csi-node-driver-registrar:v2.14.0" in v100_images
    assert "fluidcloudnative/dataset-controller:v1.0.8-6533239" in v100_images
    # Deployed by the AlluxioRuntime controller from its environment: runtime, FUSE and DataLoad.
    assert "alluxio/alluxio-dev:2.9.0" in v100_images
    assert any(image.startswith(TRAINING + ":") for image in v100_images)


def test_one_setting_sends_every_listed_image_to_the_mirror_under_its_own_path(v100_images, tmp_path):
    mirrored = listed(V100, tmp_path / "mirrored.txt", fluidops_image_registry=MIRROR)
    assert all(image.startswith(MIRROR + "/") for image in mirrored), mirrored
    assert sorted(image[len(MIRROR) + 1:] for image in mirrored) == sorted(path_of(image) for image in v100_images)


def test_the_standalone_chart_s_image_and_no_training_for_seed_004(tmp_path):
    images = listed(SEED004, tmp_path / "seed004.txt", fluidops_image_registry=MIRROR)
    assert images == [MIRROR + "/alluxio/alluxio:2.9.6"]


def test_what_the_bundle_deploys_comes_from_the_mirror(tmp_path):
    directory = tmp_path / "rendered"
    returncode, output = run_playbook("playbooks/render.yml", inventory=V100, extra_vars=dict(
        LOCAL_CHARTS, fluidops_render_dir=str(directory), fluidops_image_registry=MIRROR))
    assert returncode == 0, output
    with open(directory / "helm-values_fluid-system_fluid.yaml", encoding="utf-8") as handle:
        values = yaml.safe_load(handle)
    assert values["csi"]["plugins"]["imagePrefix"] == MIRROR + "/fluidcloudnative"
    assert values["runtime"]["alluxio"]["runtime"]["imagePrefix"] == MIRROR + "/alluxio"
    jobs = [name for name in os.listdir(directory) if name.lower().startswith("mpijob")]
    assert jobs, os.listdir(directory)
    with open(directory / jobs[0], encoding="utf-8") as handle:
        job = yaml.safe_load(handle)
    images = {c["image"] for spec in job["spec"]["mpiReplicaSpecs"].values() for c in spec["template"]["spec"]["containers"]}
    assert images and all(image.startswith(MIRROR + "/tensorflow-samples/") for image in images), images


def test_a_registry_that_is_not_one_stops_before_anything_is_written(tmp_path):
    returncode, output = run_playbook("playbooks/images.yml", inventory=V100, extra_vars=dict(
        LOCAL_CHARTS, fluidops_images_file=str(tmp_path / "images.txt"), fluidops_image_registry="https://mirror.example"))
    assert returncode != 0
    assert "fluidops_image_registry=https://mirror.example is not a registry" in folded(output)
    assert not (tmp_path / "images.txt").exists()


def test_an_image_the_inventory_s_fluid_values_name_comes_from_the_mirror_too(tmp_path):
    """fluid_values (the runtime's Alluxio image, as the local real nodes set it) before the mirror."""
    directory = tmp_path / "rendered"
    alluxio = {"imagePrefix": "alluxio", "imageName": "alluxio", "imageTag": "2.9.3"}
    returncode, output = run_playbook("playbooks/render.yml", inventory=V100, extra_vars=dict(
        LOCAL_CHARTS, fluidops_render_dir=str(directory), fluidops_image_registry=MIRROR,
        fluid_values={"runtime": {"alluxio": {"runtime": alluxio, "fuse": alluxio}}}))
    assert returncode == 0, output
    with open(directory / "helm-values_fluid-system_fluid.yaml", encoding="utf-8") as handle:
        values = yaml.safe_load(handle)
    for image in ("runtime", "fuse"):
        assert values["runtime"]["alluxio"][image] == dict(alluxio, imagePrefix=MIRROR + "/alluxio"), values["runtime"]["alluxio"]
    assert values["dataset"]["controller"]["imagePrefix"] == MIRROR + "/fluidcloudnative"
