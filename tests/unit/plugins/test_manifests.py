"""Render-mode filters: redaction, file names, manifest YAML; helm template's output read; OSS Secrets, NFS volumes, placement."""

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.filter.dataset_objects import fluid_dataset_manifests, nfs_volume_manifests
from ansible_collections.fluidops.accel.plugins.filter.rendered_manifests import manifest_filename, manifests_from_yaml, redact_secrets, to_manifest_yaml
from ansible_collections.fluidops.accel.plugins.filter.store_secrets import placeholder_credentials, store_secret_manifests, store_secret_problems

SEED_003_OPTIONS = ["vers=3", "nolock", "proto=tcp", "rsize=1048576", "wsize=1048576", "hard", "timeo=600", "retrans=2",
                    "noresvport", "nfsvers=4.1"]


def test_redact_secret_data_and_inline_keys_but_not_names():
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "stringData": {"a": "1"}, "data": {"b": "Mg=="}}
    assert redact_secrets(secret)["stringData"] == {"a": "REDACTED"} and redact_secrets(secret)["data"] == {"b": "REDACTED"}
    assert secret["stringData"] == {"a": "1"}
    dataset = {"kind": "Dataset", "spec": {"mounts": [{"options": {"fs.oss.accessKeyId": "id", "fs.oss.accessKeySecret": "k",
                                                                   "fs.oss.endpoint": "e"},
                                                       "encryptOptions": [{"name": "fs.oss.accessKeyId",
                                                                           "valueFrom": {"secretKeyRef": {"name": "s", "key": "fs.oss.accessKeyId"}}}]}]}}
    mount = redact_secrets(dataset)["spec"]["mounts"][0]
    assert mount["options"] == {"fs.oss.accessKeyId": "REDACTED", "fs.oss.accessKeySecret": "REDACTED", "fs.oss.endpoint": "e"}
    assert mount["encryptOptions"] == dataset["spec"]["mounts"][0]["encryptOptions"]
    assert redact_secrets({"kind": "JindoRuntime", "spec": {"secret": "mysecret"}})["spec"]["secret"] == "mysecret"


def test_file_names_are_unique_per_object():
    assert manifest_filename({"kind": "Dataset", "metadata": {"name": "imagenet", "namespace": "default"}}) == "dataset_default_imagenet.yaml"
    assert manifest_filename({"kind": "PersistentVolume", "metadata": {"name": "nfs-imagenet"}}) == "persistentvolume_nfs-imagenet.yaml"


def test_manifest_yaml_has_no_anchors_and_keeps_order():
    shared = {"enabled": True}
    text = to_manifest_yaml({"runtime": {"alluxio": shared, "jindo": shared}, "a": [1]})
    assert "&" not in text and "*" not in text
    assert text.startswith("---\nruntime:")
    assert yaml.safe_load(text) == {"runtime": {"alluxio": {"enabled": True}, "jindo": {"enabled": True}}, "a": [1]}
    assert "  - 1" in text


def test_helm_templates_output_is_read_as_helm_reads_it():
    # As Fluid 1.0.8's csi DaemonSet gives it: a key twice in one container keeps its last value.
    text = """---
# Source: fluid/templates/empty.yaml
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: csi-nodeplugin-fluid}
spec:
  template:
    spec:
      containers:
        - name: plugins
          imagePullPolicy: IfNotPresent
          image: fluid-csi
          imagePullPolicy: Always
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: fluid-csi}
"""
    daemonset, account = manifests_from_yaml(text)
    assert daemonset["spec"]["template"]["spec"]["containers"][0] == {"name": "plugins", "imagePullPolicy": "Always", "image": "fluid-csi"}
    assert account == {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "fluid-csi"}}
    assert manifests_from_yaml("") == []
    with pytest.raises(yaml.YAMLError):
        manifests_from_yaml("kind: [Secret")


def test_nfs_volume_is_seed_003s_pair():
    volume, claim = nfs_volume_manifests([{"name": "nfs-imagenet", "server": "nas", "path": "/imagenet"}], "default", SEED_003_OPTIONS)
    assert volume["spec"]["mountOptions"] == SEED_003_OPTIONS
    assert volume["spec"]["accessModes"] == claim["spec"]["accessModes"] == ["ReadOnlyMany"]
    assert volume["spec"]["capacity"] == {"storage": "150Gi"} and claim["spec"]["resources"] == {"requests": {"storage": "150Gi"}}
    assert claim["spec"]["volumeName"] == "nfs-imagenet" and claim["metadata"]["namespace"] == "default"


@pytest.mark.parametrize("item, message", [
    ({"name": "NFS", "server": "nas", "path": "/x"}, "datasets_nfs_volumes[0].name=NFS is not a DNS-1123 label"),
    ({"name": "nfs", "path": "/x"}, "datasets_nfs_volumes[0] (nfs).server is not set"),
    ({"name": "nfs", "server": "nas", "path": "x"}, "datasets_nfs_volumes[0] (nfs).path=x is not an absolute path"),
    ({"name": "nfs", "server": "nas", "path": "/x", "capacity": "big"}, "datasets_nfs_volumes[0] (nfs).capacity=big is not a quantity"),
    ({"name": "nfs", "server": "nas", "path": "/x", "access_modes": ["ReadMany"]}, "access_modes has ReadMany"),
])
def test_bad_nfs_volume_names_the_variable(item, message):
    with pytest.raises(AnsibleFilterError) as error:
        nfs_volume_manifests([item], "default", SEED_003_OPTIONS)
    assert message in str(error.value)


def test_oss_secrets_and_their_problems_never_show_a_value():
    secret, = store_secret_manifests({"imagenet-oss": {"access_key_id": "id", "access_key_secret": "key"}}, "default")
    assert secret["stringData"] == {"fs.oss.accessKeyId": "id", "fs.oss.accessKeySecret": "key"}
    problems = store_secret_problems({"half": {"access_key_id": "sensitive-id"}})
    assert problems == ["datasets_oss_secrets[half] lacks access_key_secret"]
    secret, = store_secret_manifests({"imagenet-s3": {"access_key_id": "id", "access_key_secret": "key", "namespace": "ml"}}, "default", "s3")
    assert (secret["metadata"], secret["stringData"]) == ({"name": "imagenet-s3", "namespace": "ml"}, {"aws.accessKeyId": "id", "aws.secretKey": "key"})
    assert store_secret_problems({"Half": {"access_key_id": "sensitive-id"}}, "default", "s3") == [
        "datasets_s3_secrets[Half]: the Secret name=Half is not a DNS-1123 label (at most 63 lower case letters, digits and '-', "
        "starting and ending with a letter or digit)"]
    with pytest.raises(AnsibleFilterError, match="store=gcs is not one of oss, s3"):
        store_secret_problems({}, "default", "gcs")
    assert placeholder_credentials({"a": {"access_key_id": "CHANGE-ME", "access_key_secret": "real"},
                                    "b": {"access_key_id": "<id>", "access_key_secret": "x"},
                                    "c": {"access_key_id": "real-id", "access_key_secret": "real-key"}}, "p.") == ["p.a", "p.b"]


def dataset(name, placement=None, replicas=4):
    item = {"name": name, "mounts": [{"mount_point": "pvc://" + name}],
            "runtime": {"replicas": replicas, "tiers": [{"medium": "SSD", "path": "/var/lib/docker/alluxio", "quota": "1Gi"}]}}
    if placement:
        item["placement"] = placement
    return item


CONTEXT = {"profiles": {"fluid-defaults": {}}, "gpu_node_count": 4, "accelerator_key": "k", "accelerator": "v", "namespace": "default"}


def test_two_exclusive_datasets_on_all_nodes_do_not_fit():
    with pytest.raises(AnsibleFilterError) as error:
        fluid_dataset_manifests([dataset("a"), dataset("b")], CONTEXT)
    assert "datasets_list: a, b use Exclusive placement" in str(error.value) and "need 8 of the 4 GPU nodes" in str(error.value)
    assert fluid_dataset_manifests([dataset("a", "Shared"), dataset("b", "Shared")], CONTEXT)["manifests"]
    assert fluid_dataset_manifests([dataset("a", replicas=2), dataset("b", replicas=2)], CONTEXT)["manifests"]
