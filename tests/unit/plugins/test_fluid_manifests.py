"""Fluid Dataset and runtime manifests from dataset variables, and the checks on them."""

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.filter.dataset_objects import fluid_dataset_manifests
from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import build_dataset

with open("roles/fluidops/defaults/main/tuning_profiles.yml", encoding="utf-8") as handle:
    PROFILES = yaml.safe_load(handle)["fluidops_builtin_tuning_profiles"]
CONTEXT = {"profiles": PROFILES, "gpu_node_count": 4, "accelerator_key": "aliyun.accelerator/nvidia_name",
           "accelerator": "Tesla-V100-SXM2-16GB", "namespace": "default"}
V100_AFFINITY = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
    {"key": "aliyun.accelerator/nvidia_name", "operator": "In", "values": ["Tesla-V100-SXM2-16GB"]}]}]}}


def pvc_dataset(**runtime):
    """Seed 003: Fluid over the NFS PVC, SSD tier 150Gi, 4 workers, data.replicas 1."""
    base = {"tiers": [{"medium": "SSD", "path": "/var/lib/docker/alluxio", "quota": "150Gi", "high": "0.99", "low": "0.8"}],
            "data_replicas": 1}
    base.update(runtime)
    return {"name": "fluid-imagenet", "mounts": [{"mount_point": "pvc://nfs-imagenet", "name": "nfs-imagenet"}], "runtime": base}


def test_seed_003_dataset_over_a_pvc():
    dataset, runtime = build_dataset(pvc_dataset(), 0, CONTEXT)["manifests"]
    assert dataset == {"apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset",
                       "metadata": {"name": "fluid-imagenet", "namespace": "default"},
                       "spec": {"mounts": [{"mountPoint": "pvc://nfs-imagenet", "name": "nfs-imagenet"}], "nodeAffinity": V100_AFFINITY}}
    assert runtime["kind"] == "AlluxioRuntime"
    # volumeType and volumeSource: what Fluid's controller writes into the level (said here, so a second run changes nothing).
    assert runtime["spec"] == {"replicas": 4, "data": {"replicas": 1}, "tieredstore": {"levels": [
        {"mediumtype": "SSD", "path": "/var/lib/docker/alluxio", "quota": "150Gi", "high": "0.99", "low": "0.8",
         "volumeType": "hostPath", "volumeSource": {}}]}}


def test_the_runtime_pods_tolerate_the_gpu_nodes_taints():
    taints = [{"key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}]
    dataset, _unused = build_dataset(pvc_dataset(), 0, dict(CONTEXT, tolerations=taints))["manifests"]
    assert dataset["spec"]["tolerations"] == [
        {"operator": "Equal", "key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}]
    # An item's own list replaces the nodes' taints; an empty one asks for none.
    dataset, _unused = build_dataset(dict(pvc_dataset(), tolerations=[]), 0, dict(CONTEXT, tolerations=taints))["manifests"]
    assert "tolerations" not in dataset["spec"]


def test_oss_keys_from_a_secret_become_encrypt_options():
    item = {"name": "imagenet", "mounts": [{"mount_point": "oss://imagenet/data/", "options": {"fs.oss.endpoint": "oss-cn-shanghai.aliyuncs.com"},
                                            "oss_secret": "imagenet-oss"}],
            "runtime": {"type": "jindo", "tiers": [{"medium": "SSD", "path": "/var/lib/docker/jindo", "quota": "180G"}]}}
    dataset, runtime = build_dataset(item, 0, CONTEXT)["manifests"]
    mount = dataset["spec"]["mounts"][0]
    assert mount["options"] == {"fs.oss.endpoint": "oss-cn-shanghai.aliyuncs.com"}
    assert mount["encryptOptions"] == [
        {"name": "fs.oss.accessKeyId", "valueFrom": {"secretKeyRef": {"name": "imagenet-oss", "key": "fs.oss.accessKeyId"}}},
        {"name": "fs.oss.accessKeySecret", "valueFrom": {"secretKeyRef": {"name": "imagenet-oss", "key": "fs.oss.accessKeySecret"}}}]
    assert runtime["kind"] == "JindoRuntime" and runtime["spec"]["tieredstore"]["levels"][0]["quota"] == "180G"


def test_profile_then_single_key_overrides():
    runtime = build_dataset(pvc_dataset(profile="dl-training", properties={"alluxio.user.block.size.bytes.default": "32MB"},
                                        fuse_env={"MAX_IDLE_THREADS": "64"}), 0, CONTEXT)["manifests"][1]["spec"]
    assert runtime["properties"]["alluxio.user.block.size.bytes.default"] == "32MB"
    assert runtime["properties"]["alluxio.master.metastore"] == "ROCKS"
    assert runtime["fuse"]["env"] == {"MAX_IDLE_THREADS": "64"}
    assert runtime["fuse"]["args"][1].startswith("--fuse-opts=kernel_cache,ro,max_read=131072,attr_timeout=7200")
    assert runtime["worker"]["jvmOptions"][0] == "-Xmx12G"


def test_jvm_options_for_all_are_the_runtime_s_own_and_the_profile_s_stay():
    # Fluid passes spec.jvmOptions to every Alluxio process (ALLUXIO_JAVA_OPTS), job master and job worker too.
    runtime = build_dataset(pvc_dataset(profile="dl-training", jvm_options={"all": ["-XX:TieredStopAtLevel=1"]}), 0,
                            CONTEXT)["manifests"][1]["spec"]
    assert runtime["jvmOptions"] == ["-XX:TieredStopAtLevel=1"]
    assert runtime["master"]["jvmOptions"][0] == "-Xmx6G" and runtime["fuse"]["jvmOptions"][0] == "-Xmx16G"


@pytest.mark.parametrize("item, message", [
    (pvc_dataset(tiers=[{"medium": "NVME", "path": "/x", "quota": "1Gi"}]), "runtime.tiers[0].medium=NVME is not one of MEM, SSD, HDD"),
    (pvc_dataset(tiers=[{"medium": "SSD", "path": "/x", "quota": "lots"}]), "runtime.tiers[0].quota=lots is not a quantity"),
    (pvc_dataset(tiers=[{"medium": "SSD", "path": "/x", "quota": "1Gi", "high": "0.7", "low": "0.8"}]),
     "watermarks high=0.7 low=0.8 must satisfy 0 < low < high <= 1"),
    (pvc_dataset(tiers=[{"medium": "SSD", "path": "/x", "quota": "1Gi", "high": "1.5"}]), "must satisfy 0 < low < high <= 1"),
    (pvc_dataset(replicas=5), "runtime.replicas=5 must be between 1 and the number of GPU nodes (4)"),
    (pvc_dataset(profile="fastest"), "runtime.profile=fastest is not a tuning profile: use one of dl-training"),
    (pvc_dataset(properties={"alluxio.user.client.cache.store.type": "MEMORY"}),
     "alluxio.user.client.cache.store.type]=MEMORY is not one of LOCAL, ROCKS, MEM; use MEM"),
    ({"name": "x", "mounts": [{"mount_point": "oss://b/", "oss_secret": "s", "options": {"fs.oss.accessKeyId": "a", "fs.oss.accessKeySecret": "b"}}],
      "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}}, "OSS keys come both from a Secret or both inline"),
    ({"name": "x", "mounts": [{"mount_point": "oss://b/", "options": {"fs.oss.accessKeyId": "a"}}],
      "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}}, "sets only fs.oss.accessKeyId"),
    ({"name": "x", "mounts": [{"mount_point": "oss://b/", "options": {"fs.oss.accessKeyId": "a", "fs.oss.accessKeySecret": "b"}}],
      "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}}, "set allow_inline_credentials: true"),
    # S3 as OSS: a Secret or both keys inline, opted in; by either of Alluxio's names for them.
    ({"name": "x", "mounts": [{"mount_point": "s3://b/", "options": {"s3a.accessKeyId": "a"}}],
      "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}},
     "options sets only s3a.accessKeyId: set both aws.accessKeyId and aws.secretKey, or neither and s3_secret"),
    ({"name": "x", "mounts": [{"mount_point": "s3://b/", "s3_secret": "s", "options": {"aws.accessKeyId": "a", "aws.secretKey": "b"}}],
      "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}}, "S3 keys come both from a Secret or both inline"),
    ({"name": "x", "mounts": [{"mount_point": "s3://b/", "oss_secret": "s"}], "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}},
     "mounts[0] sets oss_secret, which names the Secret of an OSS mount point (oss://), but mount_point=s3://b/"),
    ({"name": "x", "mounts": [{"mount_point": "pvc://c", "s3_secret": "s"}], "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}},
     "sets s3_secret, which names the Secret of an S3 mount point (s3://), but mount_point=pvc://c"),
    ({"name": "x", "mounts": [{"mount_point": "s3://b/", "s3_secret": "s"}],
      "runtime": {"type": "jindo", "tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}},
     "an S3 mount point (s3://b/) needs an AlluxioRuntime"),
    (pvc_dataset(properties={"aws.secretKey": "k"}), "holds aws.secretKey: an object store's keys go in a Secret named by the mount's oss_secret or s3_secret"),
    ({"name": "Bad_Name", "mounts": [{"mount_point": "pvc://a"}]}, "datasets_list[0].name=Bad_Name is not a DNS-1123 label"),
    # A string where a list or a mapping is expected is refused by name, not read as characters.
    (pvc_dataset(tiers="MEM:/dev/shm:1Gi"), "runtime.tiers must be a list, got a string (MEM:/dev/shm:1Gi)"),
    (dict(pvc_dataset(), mounts="pvc://nfs-imagenet"), "datasets_list[0] (fluid-imagenet).mounts must be a list, got a string"),
    (pvc_dataset(fuse_args="fuse --fuse-opts=kernel_cache"), "runtime.fuse_args must be a list, got a string"),
    (pvc_dataset(jvm_options={"fuse": "-Xmx16G"}), "runtime.jvm_options.fuse must be a list, got a string (-Xmx16G)"),
    (pvc_dataset(jvm_options={"job_master": ["-Xmx1G"]}),
     "runtime.jvm_options has job_master, which is not one of master, worker, fuse, all"),
    (pvc_dataset(properties=["alluxio.user.file.readtype.default=CACHE"]), "runtime.properties must be a mapping, got a list"),
    (pvc_dataset(tiers=["MEM"]), "runtime.tiers[0] must be a mapping, got a string (MEM)"),
    # The standalone chart's FUSE rules hold for a runtime's fuse args too.
    (pvc_dataset(fuse_args=["fuse", "--fuse-opts=direct_io,ro"]), "runtime.fuse_args has direct_io: seed 004 advises against it"),
    (pvc_dataset(fuse_args=["fuse", "--fuse-opts=kernel_cache,attr_timeout=2h"]),
     "runtime.fuse_args has attr_timeout=2h: attr_timeout takes a number of seconds, such as attr_timeout=7200"),
    (pvc_dataset(fuse_args=["fuse", "--fuse-opts=kernel cache"]), "runtime.fuse_args has kernel cache, which is not a FUSE mount option"),
    (dict(pvc_dataset(type="jindo"), runtime={"type": "jindo", "fuse_args": ["-odirect_io"],
                                              "tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}),
     "runtime.fuse_args has direct_io"),
])
def test_bad_input_names_the_variable_the_value_and_what_is_allowed(item, message):
    with pytest.raises(InputError) as error:
        build_dataset(item, 0, CONTEXT)
    assert message in str(error.value)


def test_inline_keys_with_the_opt_in_are_accepted_with_a_warning():
    item = {"name": "x", "mounts": [{"mount_point": "oss://b/", "allow_inline_credentials": True,
                                     "options": {"fs.oss.accessKeyId": "a", "fs.oss.accessKeySecret": "b"}}],
            "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}}
    built = build_dataset(item, 0, CONTEXT)
    assert built["manifests"][0]["spec"]["mounts"][0]["options"]["fs.oss.accessKeyId"] == "a"
    assert any("inline" in warning for warning in built["warnings"])


def test_an_s3_mount_takes_its_keys_from_its_secret_by_the_names_fluid_passes_to_alluxio():
    item = {"name": "x", "mounts": [{"mount_point": "s3://imagenet/", "name": "imagenet", "s3_secret": "imagenet-s3",
                                     "options": {"alluxio.underfs.s3.endpoint": "http://store:7070"}}],
            "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}}
    mount = build_dataset(item, 0, CONTEXT)["manifests"][0]["spec"]["mounts"][0]
    assert mount["encryptOptions"] == [{"name": key, "valueFrom": {"secretKeyRef": {"name": "imagenet-s3", "key": key}}}
                                       for key in ("aws.accessKeyId", "aws.secretKey")]
    assert mount["options"] == {"alluxio.underfs.s3.endpoint": "http://store:7070"}


def test_filter_raises_ansible_errors():
    with pytest.raises(AnsibleFilterError, match="replicas=9"):
        fluid_dataset_manifests([pvc_dataset(replicas=9)], CONTEXT)


def test_what_the_api_or_fluid_would_refuse_is_refused_naming_the_variable():
    # A DNS-1123 name that Fluid's controller refuses (a DNS-1035 label starts with a letter).
    with pytest.raises(AnsibleFilterError, match=r"datasets_list\[0\] \(1k-imagenet\) would be refused: Dataset default/1k-imagenet: "
                                                 r"metadata.name=1k-imagenet is not a DNS-1035 label"):
        fluid_dataset_manifests([dict(pvc_dataset(), name="1k-imagenet")], CONTEXT)


@pytest.mark.parametrize("properties, refused", [
    ({}, True),  # Fluid 1.0.8 loads libfuse 3 unless told
    ({"alluxio.fuse.jnifuse.libfuse.version": "3"}, True),
    ({"alluxio.fuse.jnifuse.libfuse.version": "2"}, False),
])
def test_libfuse_2_s_options_are_refused_where_fluid_loads_libfuse_3(properties, refused):
    item = pvc_dataset(fuse_args=["fuse", "--fuse-opts=kernel_cache,ro,nonempty"], properties=properties)
    if not refused:
        assert build_dataset(item, 0, CONTEXT)["manifests"][1]["spec"]["fuse"]["args"][1].endswith(",nonempty")
        return
    with pytest.raises(InputError) as error:
        build_dataset(item, 0, CONTEXT)
    assert "runtime.fuse_args has nonempty, which libfuse 3 refuses (alluxio.fuse.jnifuse.libfuse.version=3" in str(error.value)
    assert 'set alluxio.fuse.jnifuse.libfuse.version: "2"' in str(error.value)


def test_every_built_in_profile_s_fuse_options_suit_the_libfuse_it_loads():
    for name in CONTEXT["profiles"]:
        build_dataset(pvc_dataset(profile=name), 0, CONTEXT)


S3FS = {"name": "s3fs", "file_system_type": "fuse.s3fs", "image": "fluidops/s3fs-fuse:1.90"}
BASELINE = {"name": "imagenet-baseline", "mounts": [{"mount_point": "s3://imagenet/", "name": "imagenet", "s3_secret": "imagenet-s3",
                                                     "options": {"url": "http://store:7070", "use_path_request_style": ""}}],
            "runtime": {"type": "thin", "thin_profile": "s3fs"}}


def test_a_thin_runtime_names_its_profile_and_keeps_no_cache():
    dataset, runtime = build_dataset(BASELINE, 0, dict(CONTEXT, thin_profiles=[S3FS]))["manifests"]
    mount = dataset["spec"]["mounts"][0]
    # The FUSE program's own options, and the keys as files Fluid mounts from the Secret.
    assert mount["options"] == {"url": "http://store:7070", "use_path_request_style": ""}
    assert [option["name"] for option in mount["encryptOptions"]] == ["aws.accessKeyId", "aws.secretKey"]
    assert runtime == {"apiVersion": "data.fluid.io/v1alpha1", "kind": "ThinRuntime",
                       "metadata": {"name": "imagenet-baseline", "namespace": "default"}, "spec": {"profileName": "s3fs"}}
    _dataset, runtime = build_dataset(dict(BASELINE, runtime={"type": "thin", "thin_profile": "s3fs", "fuse_options": {"retries": 3}}),
                                      0, dict(CONTEXT, thin_profiles=[S3FS]))["manifests"]
    assert runtime["spec"]["fuse"] == {"options": {"retries": "3"}}


def test_the_profiles_come_first_their_images_mirrored_and_a_thin_runtime_takes_no_node():
    # Four Exclusive cache workers fill the four nodes; the ThinRuntime runs none.
    built = fluid_dataset_manifests([pvc_dataset(), BASELINE],
                                    dict(CONTEXT, thin_profiles=[dict(S3FS, command=["/entry"], env={"S3FS_DEBUG": 1})],
                                         image_registry="mirror.example:5000"))
    assert [m["kind"] for m in built["manifests"]] == ["ThinRuntimeProfile", "Dataset", "AlluxioRuntime", "Dataset", "ThinRuntime"]
    assert built["manifests"][0] == {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "ThinRuntimeProfile", "metadata": {"name": "s3fs"},
        "spec": {"fileSystemType": "fuse.s3fs", "fuse": {
            "image": "mirror.example:5000/fluidops/s3fs-fuse", "imageTag": "1.90", "imagePullPolicy": "IfNotPresent",
            "command": ["/entry"], "env": [{"name": "S3FS_DEBUG", "value": "1"}]}}}


@pytest.mark.parametrize("item, profiles, message", [
    (BASELINE, [], "runtime.thin_profile=s3fs is not a profile of datasets_thin_profiles (none is defined)"),
    (dict(BASELINE, runtime={"type": "thin"}), [S3FS], "runtime.thin_profile=(unset) is not a profile of datasets_thin_profiles (s3fs)"),
    (dict(BASELINE, runtime={"type": "thin", "thin_profile": "s3fs", "tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}),
     [S3FS], "runtime sets tiers, which a ThinRuntime does not take: it keeps no cache"),
    (dict(BASELINE, warmup={"targets": []}), [S3FS], "(imagenet-baseline).warmup is set, but its runtime (type thin) keeps no cache to warm"),
    (BASELINE, [dict(S3FS, image="fluidops/s3fs-fuse")], "datasets_thin_profiles[0] (s3fs).image=fluidops/s3fs-fuse must be an image "
                                                         "reference with its tag"),
    (BASELINE, [dict(S3FS, file_system_type="")], "datasets_thin_profiles[0] (s3fs).file_system_type= must name the mount's type"),
    (BASELINE, [dict(S3FS, pull_policy="Sometimes")], "pull_policy=Sometimes is not one of Always, IfNotPresent, Never"),
    (BASELINE, [dict(S3FS, command="/entry")], "datasets_thin_profiles[0] (s3fs).command must be a list, got a string (/entry)"),
    (BASELINE, [S3FS, S3FS], "datasets_thin_profiles[1] (s3fs): the name is given twice"),
    (BASELINE, {"s3fs": S3FS}, "datasets_thin_profiles must be a list, got a mapping"),
])
def test_bad_thin_runtimes_and_profiles_are_refused_by_name(item, profiles, message):
    with pytest.raises(AnsibleFilterError) as error:
        fluid_dataset_manifests([item], dict(CONTEXT, thin_profiles=profiles))
    assert message in str(error.value)


MEM_CACHE = {"alluxio.user.client.cache.enabled": "true", "alluxio.user.client.cache.store.type": "MEM"}


def test_a_memory_client_cache_must_fit_the_fuse_heap_with_the_metadata_cache():
    # The profile's: 2000MB of pages and 1,000,000 metadata entries (about 3.8 GiB) in -Xmx16G.
    assert build_dataset(pvc_dataset(profile="dl-training-client-cache"), 0, CONTEXT)["manifests"][1]["spec"]["fuse"]["jvmOptions"][0] == "-Xmx16G"
    with pytest.raises(InputError, match=r"runtime.properties \(or its profile\) has alluxio.user.client.cache.size=14GB with store type MEM: "
                                         r"its pages live in the FUSE JVM's heap \(16.00GiB\), which also holds the client metadata cache "
                                         r"\(1000000 entries, 3.81GiB when full\): at most 12.19GiB fits"):
        build_dataset(pvc_dataset(profile="dl-training-client-cache", properties={"alluxio.user.client.cache.size": "14GB"}), 0, CONTEXT)
    # The runtime's own -Xmx, the last one, counts; so does a cache on disk, which is not in the heap.
    build_dataset(pvc_dataset(profile="dl-training-client-cache", properties={"alluxio.user.client.cache.size": "14GB"},
                              jvm_options={"fuse": ["-Xmx8G", "-Xmx24g"]}), 0, CONTEXT)
    build_dataset(pvc_dataset(profile="dl-training-client-cache", properties={"alluxio.user.client.cache.size": "14GB",
                                                                              "alluxio.user.client.cache.store.type": "LOCAL"}), 0, CONTEXT)


def test_a_runtime_silent_on_the_fuse_heap_and_metadata_cache_gets_fluid_s():
    # Fluid's FUSE: -Xmx16G, and up to 6,000,000 metadata entries (about 23 GiB): no memory cache fits.
    with pytest.raises(InputError, match=r"cache.size=512MB with store type MEM.*\(16.00GiB\).*\(6000000 entries, 22.89GiB when full\): "
                                         r"nothing fits"):
        build_dataset(pvc_dataset(properties=dict(MEM_CACHE, **{"alluxio.user.client.cache.size": "512MB"})), 0, CONTEXT)
    build_dataset(pvc_dataset(properties=dict(MEM_CACHE, **{"alluxio.user.metadata.cache.max.size": "100000"})), 0, CONTEXT)


def test_fuse_resources_come_from_the_profile_or_the_runtime_whole():
    resources = {"requests": {"cpu": "4", "memory": "20Gi"}, "limits": {"cpu": "8", "memory": "24Gi"}}
    context = dict(CONTEXT, profiles=dict(PROFILES, sized=dict(PROFILES["dl-training"], fuse_resources=resources)))

    def fuse(**runtime):
        return build_dataset(pvc_dataset(profile="sized", **runtime), 0, context)["manifests"][1]["spec"]["fuse"]

    assert fuse()["resources"] == resources
    # The runtime's replaces the profile's whole; {} asks for none.
    assert fuse(fuse_resources={"limits": {"memory": "32Gi"}})["resources"] == {"limits": {"memory": "32Gi"}}
    assert "resources" not in fuse(fuse_resources={})


@pytest.mark.parametrize("resources, message", [
    ({"requests": {"cpu": "4"}}, r"runtime.fuse_resources sets no limits.memory: Fluid 1.0.8 then drops every FUSE resource of the runtime"),
    ({"limits": {"memory": "8Gi"}}, r"runtime.fuse_resources.limits.memory=8Gi is under the FUSE JVM's heap \(-Xmx, 16.00GiB\)"),
    ({"requests": {"cpu": "10"}, "limits": {"cpu": "8", "memory": "24Gi"}}, r"runtime.fuse_resources.requests.cpu=10 is above its limit 8"),
    ({"limits": {"cpu": "lots", "memory": "24Gi"}}, r"runtime.fuse_resources.limits.cpu=lots is not a quantity such as 8 or 500m"),
    ({"limits": {"memory": "24GB"}}, r"runtime.fuse_resources.limits.memory=24GB is not a quantity such as 24Gi"),
    ({"limits": {"gpu": "1", "memory": "24Gi"}}, r"runtime.fuse_resources.limits has gpu: allowed are cpu, memory"),
    ({"max": {"memory": "24Gi"}}, r"runtime.fuse_resources has max: allowed are requests and limits"),
    ("24Gi", r"runtime.fuse_resources must be a mapping, got a string \(24Gi\)"),
])
def test_bad_fuse_resources_are_refused_by_name(resources, message):
    with pytest.raises(InputError, match=message):
        build_dataset(pvc_dataset(profile="dl-training", fuse_resources=resources), 0, CONTEXT)
