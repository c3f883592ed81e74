"""Container images: a mirror registry for every image the bundle deploys, and the list of them."""

import pytest

from ansible_collections.fluidops.accel.plugins.filter import images as filters
from ansible_collections.fluidops.accel.plugins.filter.images import image_mirror, manifest_images, mirror_image_prefixes, registry_problems


@pytest.mark.parametrize("reference, mirrored", [
    # Docker Hub, with and without a namespace; the official images are under library/.
    ("alluxio/alluxio:2.9.6", "mirror.example:5000/alluxio/alluxio:2.9.6"),
    ("busybox:1.36", "mirror.example:5000/library/busybox:1.36"),
    # Another registry: its host goes, its path stays.
    ("registry.cn-hangzhou.aliyuncs.com/tensorflow-samples/horovod-benchmark-dawnbench-v2:0.18.1",
     "mirror.example:5000/tensorflow-samples/horovod-benchmark-dawnbench-v2:0.18.1"),
    ("localhost/fluidops/pause:3.10", "mirror.example:5000/fluidops/pause:3.10"),
    ("10.88.0.1:15000/fluidops/alluxio:2.9.3@sha256:" + "a" * 64, "mirror.example:5000/fluidops/alluxio:2.9.3@sha256:" + "a" * 64),
])
def test_a_mirror_keeps_the_path_tag_and_digest(reference, mirrored):
    assert image_mirror(reference, "mirror.example:5000") == mirrored
    assert image_mirror(reference, "mirror.example:5000/") == mirrored


def test_a_mirror_with_a_path_of_its_own():
    assert image_mirror("alluxio/alluxio:2.9.6", "harbor.example.com/gpu-site") == "harbor.example.com/gpu-site/alluxio/alluxio:2.9.6"


def test_no_registry_leaves_the_reference_alone():
    assert image_mirror("alluxio/alluxio:2.9.6", "") == "alluxio/alluxio:2.9.6"
    assert image_mirror("alluxio/alluxio:2.9.6", None) == "alluxio/alluxio:2.9.6"


def test_every_prefix_of_fluid_s_values_keeps_its_own_path():
    chart_values = {
        "imagePrefix": "fluidcloudnative",
        "csi": {"registrar": {"imagePrefix": "fluidcloudnative", "imageName": "csi-node-driver-registrar"}, "enabled": True},
        "runtime": {"alluxio": {"runtime": {"imagePrefix": "alluxio", "imageName": "alluxio-dev"}},
                    "jindo": {"smartdata": {"imagePrefix": "registry.cn-shanghai.aliyuncs.com/jindofs"}},
                    "juicefs": {"fuse": {"ceimagePrefix": "juicedata", "eeimagePrefix": "juicedata"}}},
        "tolerations": [{"operator": "Exists"}],
    }
    assert mirror_image_prefixes(chart_values, "mirror.example:5000") == {
        "imagePrefix": "mirror.example:5000/fluidcloudnative",
        "csi": {"registrar": {"imagePrefix": "mirror.example:5000/fluidcloudnative"}},
        "runtime": {"alluxio": {"runtime": {"imagePrefix": "mirror.example:5000/alluxio"}},
                    "jindo": {"smartdata": {"imagePrefix": "mirror.example:5000/jindofs"}},
                    "juicefs": {"fuse": {"ceimagePrefix": "mirror.example:5000/juicedata", "eeimagePrefix": "mirror.example:5000/juicedata"}}},
    }
    assert mirror_image_prefixes(chart_values, "") == {}


def test_the_images_of_every_pod_an_object_carries():
    container = {"name": "c", "image": "a/app:1", "env": [{"name": "ALLUXIO_RUNTIME_IMAGE_ENV", "value": "alluxio/alluxio-dev:2.9.0"},
                                                          {"name": "OTHER", "value": "not/an-image:1"}]}
    objects = [
        {"kind": "Deployment", "spec": {"template": {"spec": {"containers": [container], "initContainers": [{"image": "a/init:1"}]}}}},
        {"kind": "DaemonSet", "spec": {"template": {"spec": {"containers": [{"image": "a/app:1"}, {"image": "a/sidecar:2"}]}}}},
        {"kind": "Pod", "spec": {"containers": [{"image": "a/pod:3"}]}},
        {"kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"image": "a/cron:4"}]}}}}}},
        {"kind": "MPIJob", "spec": {"mpiReplicaSpecs": {"Launcher": {"template": {"spec": {"containers": [{"image": "a/train:5"}]}}},
                                                        "Worker": {"template": {"spec": {"containers": [{"image": "a/train:5"}]}}}}}},
        {"kind": "ConfigMap", "data": {"image": "not/this:1"}},
        {"kind": "ThinRuntimeProfile", "spec": {"fileSystemType": "fuse.s3fs", "fuse": {"image": "m:5000/s3fs-fuse", "imageTag": "1.90"}}},
        {"kind": "ThinRuntimeProfile", "spec": {"fuse": {"image": "a/fuse@sha256:" + "0" * 64}}},
    ]
    assert manifest_images(objects) == ["a/app:1", "a/cron:4", "a/fuse@sha256:" + "0" * 64, "a/init:1", "a/pod:3", "a/sidecar:2", "a/train:5",
                                        "alluxio/alluxio-dev:2.9.0", "m:5000/s3fs-fuse:1.90"]
    assert manifest_images([]) == []


@pytest.mark.parametrize("value", ["", None, "mirror.example", "mirror.example:5000", "10.0.0.1:5000/site/gpu", "localhost:5000"])
def test_a_registry_setting_that_is_sound(value):
    assert registry_problems(value) == []


@pytest.mark.parametrize("value", ["https://mirror.example", "mirror.example/alluxio:2.9", "mirror example", "mirror.example@sha256:ab"])
def test_a_registry_setting_that_is_not_names_the_variable_and_the_value(value):
    problems = registry_problems(value)
    assert len(problems) == 1 and problems[0].startswith("fluidops_image_registry=%s is not a registry" % value)
    assert registry_problems(value, "other_registry")[0].startswith("other_registry=")


def test_the_filters_are_registered():
    assert set(filters.FilterModule().filters()) == {"image_mirror", "mirror_image_prefixes", "manifest_images", "registry_problems"}
