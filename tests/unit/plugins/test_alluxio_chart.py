"""Values of the standalone Alluxio chart (seed 004) from a tuning profile, and their checks."""

import pytest
import yaml

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.chart import build_values, oss_site_properties, site_properties
from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError
from ansible_collections.fluidops.accel.plugins.module_utils.tuning import fuse_mount_options

with open("roles/fluidops/defaults/main/tuning_profiles.yml", encoding="utf-8") as handle:
    PROFILES = yaml.safe_load(handle)["fluidops_builtin_tuning_profiles"]


def params(**overrides):
    base = {"profiles": PROFILES, "profile": "dl-training-client-cache", "properties": {}, "jvm_options": {}, "fuse_env": {},
            "fuse_mount_options": [], "fuse_mount_point": "/mnt/alluxio-fuse",
            "tiers": [{"medium": "MEM", "path": "/ram/alluxio", "quota": "100Gi", "high": "0.95", "low": "0.7"}],
            "root_ufs": "oss://imagenet/data/", "root_ufs_options": {"fs.oss.endpoint": "oss-cn-shanghai.aliyuncs.com"},
            "oss_secret": "alluxio-oss", "s3_secret": "alluxio-s3", "image": "alluxio/alluxio", "image_tag": "2.9.6",
            "journal": {"type": "UFS", "volumeType": "emptyDir"}, "short_circuit": {"volumeType": "hostPath"},
            "node_selector": {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"}}
    base.update(overrides)
    return base


def test_seed_004_values_from_the_client_cache_profile():
    values = build_values(params())["values"]
    assert values["fuse"]["mountOptions"] == "allow_other,kernel_cache,ro,max_read=131072,attr_timeout=7200,entry_timeout=7200,nonempty"
    assert values["fuse"]["mountPath"] == values["fuse"]["mountPoint"] == "/mnt/alluxio-fuse"
    assert values["fuse"]["env"] == {"MAX_IDLE_THREADS": "32"}
    assert values["fuse"]["jvmOptions"][:2] == ["-Xmx16G", "-Xms16G"]
    assert values["master"]["jvmOptions"][0] == "-Xmx6G" and values["worker"]["jvmOptions"][0] == "-Xmx12G"
    properties = values["properties"]
    assert properties["alluxio.user.client.cache.store.type"] == "MEM"
    assert properties["alluxio.user.client.cache.page.size"] == "2MB"
    assert properties["alluxio.user.client.cache.size"] == "2000MB"
    assert properties["alluxio.master.mount.table.root.ufs"] == "oss://imagenet/data/"
    assert properties["alluxio.site.conf.dir"] == "/secrets/alluxio-oss/"
    assert values["secrets"] == {"master": {"alluxio-oss": "alluxio-oss"}, "worker": {"alluxio-oss": "alluxio-oss"}}
    assert values["tieredstore"]["levels"] == [{"level": 0, "alias": "MEM", "mediumtype": "MEM", "path": "/ram/alluxio",
                                                "type": "hostPath", "quota": "100Gi", "high": 0.95, "low": 0.7}]
    assert values["nodeSelector"] == {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"}
    assert not any("accessKey" in key for key in properties)


def test_single_keys_override_the_profile():
    values = build_values(params(properties={"alluxio.user.client.cache.size": "1800MB"}, fuse_env={"MAX_IDLE_THREADS": 64},
                                 jvm_options={"fuse": ["-Xmx8G"]}, fuse_mount_options=["kernel_cache", "attr_timeout=600"]))["values"]
    assert values["properties"]["alluxio.user.client.cache.size"] == "1800MB"
    assert values["properties"]["alluxio.user.client.cache.enabled"] == "true"
    assert values["fuse"]["env"] == {"MAX_IDLE_THREADS": "64"}
    assert values["fuse"]["jvmOptions"] == ["-Xmx8G"]
    assert values["fuse"]["mountOptions"] == "allow_other,kernel_cache,attr_timeout=600"


def test_jvm_options_for_all_are_the_chart_s_top_level_ones():
    values = build_values(params(jvm_options={"all": ["-XX:TieredStopAtLevel=1"]}))["values"]
    assert values["jvmOptions"] == ["-XX:TieredStopAtLevel=1"]
    assert values["fuse"]["jvmOptions"][0] == "-Xmx16G" and values["fuse"]["mountPoint"]


def test_unknown_property_warns_and_goes_through():
    built = build_values(params(properties={"alluxio.user.client.cache.sizee": "1GB"}))
    assert built["values"]["properties"]["alluxio.user.client.cache.sizee"] == "1GB"
    assert any("alluxio.user.client.cache.sizee" in warning for warning in built["warnings"])


@pytest.mark.parametrize("overrides, message", [
    ({"properties": {"alluxio.user.client.cache.store.type": "MEMORY"}},
     "alluxio_properties[alluxio.user.client.cache.store.type]=MEMORY is not one of LOCAL, ROCKS, MEM; use MEM"),
    ({"profile": "fast"}, "alluxio_profile=fast is not a tuning profile"),
    ({"tiers": []}, "alluxio_tiers is empty"),
    ({"tiers": [{"medium": "RAM", "path": "/ram/alluxio", "quota": "1Gi"}]}, "alluxio_tiers[0].medium=RAM is not one of MEM, SSD, HDD"),
    ({"tiers": [{"medium": "MEM", "path": "/ram/alluxio", "quota": "lots"}]}, "alluxio_tiers[0].quota=lots is not a quantity"),
    ({"tiers": [{"medium": "MEM", "path": "/ram/alluxio", "quota": "1Gi", "high": "0.5", "low": "0.7"}]},
     "alluxio_tiers[0] watermarks high=0.5 low=0.7 must satisfy 0 < low < high <= 1"),
    ({"tiers": [{"medium": "MEM", "path": "/ram/alluxio", "quota": "1Gi", "volume_type": "tmpfs"}]},
     "alluxio_tiers[0].volume_type=tmpfs is not one of hostPath, emptyDir, persistentVolumeClaim"),
    ({"root_ufs": "imagenet"}, "alluxio_root_ufs=imagenet is not a URL"),
    ({"root_ufs_options": {"fs.oss.accessKeyId": "id"}}, "alluxio_root_ufs_options holds fs.oss.accessKeyId"),
    ({"oss_secret": ""}, "alluxio_root_ufs=oss://imagenet/data/ is on OSS but alluxio_oss_secret is empty"),
    ({"root_ufs": "s3://imagenet/", "s3_secret": ""}, "alluxio_root_ufs=s3://imagenet/ is on S3 but alluxio_s3_secret is empty"),
    ({"root_ufs": "s3://imagenet/", "s3_secret": "S3 keys"}, "alluxio_s3_secret=S3 keys is not a DNS-1123 label"),
    ({"root_ufs_options": {"aws.secretKey": "key"}}, "alluxio_root_ufs_options holds aws.secretKey: the root under-store's keys go in"),
    ({"properties": {"s3a.accessKeyId": "id"}}, "alluxio_properties (or the profile) holds s3a.accessKeyId: the root under-store's keys"),
    ({"fuse_mount_options": ["direct_io"]}, "alluxio_fuse_mount_options has direct_io"),
    # Alluxio loads libfuse 2 unless told 3, which refuses libfuse 2's nonempty.
    ({"fuse_mount_options": ["kernel_cache", "nonempty"], "properties": {"alluxio.fuse.jnifuse.libfuse.version": "3"}},
     "alluxio_fuse_mount_options has nonempty, which libfuse 3 refuses"),
    ({"fuse_mount_options": "kernel_cache,ro"}, "alluxio_fuse_mount_options must be a list, got a string (kernel_cache,ro)"),
    ({"fuse_mount_options": ["entry_timeout=forever"]}, "alluxio_fuse_mount_options has entry_timeout=forever: entry_timeout takes a number"),
    ({"tiers": {"medium": "MEM"}}, "alluxio_tiers must be a list, got a mapping"),
    ({"root_ufs_options": "fs.oss.endpoint=x"}, "alluxio_root_ufs_options must be a mapping, got a string"),
    ({"jvm_options": {"master": "-Xmx2g"}}, "alluxio_jvm_options.master must be a list, got a string (-Xmx2g)"),
    ({"jvm_options": {"proxy": ["-Xmx1g"]}}, "alluxio_jvm_options has proxy, which is not one of master, worker, fuse, all"),
])
def test_bad_values_name_the_variable(overrides, message):
    with pytest.raises(InputError) as error:
        build_values(params(**overrides))
    assert message in str(error.value)


def test_mount_options_and_site_properties():
    assert fuse_mount_options(["fuse", "--fuse-opts=kernel_cache,ro"]) == ["kernel_cache", "ro"]
    assert fuse_mount_options(["fuse"]) == []
    assert fuse_mount_options(["-okernel_cache", "-oattr_timeout=7200,entry_timeout=7200"]) == [
        "kernel_cache", "attr_timeout=7200", "entry_timeout=7200"]
    assert oss_site_properties({"access_key_id": "id", "access_key_secret": "secret"}) == (
        "fs.oss.accessKeyId=id\nfs.oss.accessKeySecret=secret\n")


def test_the_secret_follows_the_root_under_store():
    built = build_values(params(root_ufs="s3://imagenet/", root_ufs_options={"alluxio.underfs.s3.endpoint": "http://s3:7070"}))
    assert (built["store"], built["secret"]) == ("s3", "alluxio-s3")
    assert built["values"]["secrets"] == {"master": {"alluxio-s3": "alluxio-s3"}, "worker": {"alluxio-s3": "alluxio-s3"}}
    assert built["values"]["properties"]["alluxio.site.conf.dir"] == "/secrets/alluxio-s3/"
    assert (build_values(params())["store"], build_values(params())["secret"]) == ("oss", "alluxio-oss")
    # A store with no keys of the bundle's (a local path, HDFS): no Secret is mounted.
    local = build_values(params(root_ufs="file:///underFSStorage", root_ufs_options={}))
    assert (local["store"], local["secret"]) == ("", "") and "secrets" not in local["values"]
    assert "alluxio.site.conf.dir" not in local["values"]["properties"]
    assert site_properties({"access_key_id": "id", "access_key_secret": "secret"}, "s3") == "aws.accessKeyId=id\naws.secretKey=secret\n"


def test_the_chart_s_memory_client_cache_must_fit_the_fuse_heap():
    with pytest.raises(InputError, match=r"alluxio_properties \(or alluxio_profile dl-training-client-cache\) has "
                                         r"alluxio.user.client.cache.size=13GB with store type MEM"):
        build_values(params(properties={"alluxio.user.client.cache.size": "13GB"}))
    # With no -Xmx at all the JVM sizes its own heap, which the play cannot know: not checked.
    build_values(params(profile="fluid-defaults", properties={"alluxio.user.client.cache.enabled": "true",
                                                              "alluxio.user.client.cache.store.type": "MEM",
                                                              "alluxio.user.client.cache.size": "64GB"}))


def test_the_chart_s_fuse_resources_are_the_variable_s_whole_and_fit_the_heap():
    resources = {"requests": {"cpu": "4"}, "limits": {"cpu": "8", "memory": "24Gi"}}
    assert build_values(params(fuse_resources=resources))["values"]["fuse"]["resources"] == resources
    assert "resources" not in build_values(params(fuse_resources={}))["values"]["fuse"]
    with pytest.raises(InputError, match=r"alluxio_fuse_resources.limits.memory=4Gi is under the FUSE JVM's heap \(-Xmx, 16.00GiB\)"):
        build_values(params(fuse_resources={"limits": {"memory": "4Gi"}}))
