"""schema_problems: Kubernetes objects against the shipped schemas of the pinned versions, then what the
apiserver and the controllers check in code; one readable line a problem, no Secret value in any."""

import copy
import json
import os
import sys

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.filter.dataset_objects import fluid_dataset_manifests, nfs_volume_manifests
from ansible_collections.fluidops.accel.plugins.filter.schema_problems import FilterModule
from ansible_collections.fluidops.accel.plugins.filter.store_secrets import store_secret_manifests
from ansible_collections.fluidops.accel.plugins.module_utils.training.jobs import mpijob_manifest
from ansible_collections.fluidops.accel.plugins.plugin_utils import schema_check
from ansible_collections.fluidops.accel.plugins.plugin_utils.schema_check import SchemaCheckError, problems

schema_problems = FilterModule().filters()["schema_problems"]
QUANTITY = "is not a Kubernetes quantity such as 100Gi, 1.5G or 500M"
POD_SPEC = {"containers": [{"name": "main", "image": "busybox:1.36", "command": ["sleep", "1"],
                            "resources": {"limits": {"cpu": "500m", "memory": "64Mi", "nvidia.com/gpu": 1}},
                            "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": True}]}],
            "restartPolicy": "Never", "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "imagenet"}}],
            "nodeSelector": {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"},
            "tolerations": [{"key": "fluidops.io/dedicated", "operator": "Equal", "value": "training", "effect": "NoSchedule"}]}
# A good object of every shipped kind, as the bundle writes them.
GOOD = {
    "v1/Namespace": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "fluid-system", "labels": {"app.kubernetes.io/part-of": "fluidops"}}},
    "v1/Secret": {"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": {"name": "imagenet-oss", "namespace": "default"},
                  "stringData": {"fs.oss.accessKeyId": "id", "fs.oss.accessKeySecret": "secret"}, "data": {"extra.key": "c2VjcmV0"}},
    "v1/PersistentVolume": {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "nfs-imagenet"},
                            "spec": {"capacity": {"storage": "150Gi"}, "volumeMode": "Filesystem", "accessModes": ["ReadOnlyMany"],
                                     "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "nfs", "mountOptions": ["vers=3", "nolock"],
                                     "nfs": {"path": "/export/imagenet", "server": "nfs.example.com"}}},
    "v1/PersistentVolumeClaim": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "nfs-imagenet", "namespace": "default"},
                                 "spec": {"accessModes": ["ReadOnlyMany"], "resources": {"requests": {"storage": "150Gi"}},
                                          "storageClassName": "nfs", "volumeName": "nfs-imagenet"}},
    "v1/Node": {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-node-1.example.com", "labels": {"fluidops.io/gpu-node": "true"}},
                "spec": {"taints": [{"key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}]}},
    "v1/ConfigMap": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "training-env", "namespace": "default"},
                     "data": {"num_batch": "1000", "NUM_THREADS": "8"}},
    "v1/Pod": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "read-imagenet", "namespace": "default"}, "spec": POD_SPEC},
    "batch/v1/Job": {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "warm-imagenet", "namespace": "default"},
                     "spec": {"backoffLimit": 0, "ttlSecondsAfterFinished": 600,
                              "template": {"metadata": {"labels": {"app": "warm-imagenet"}}, "spec": POD_SPEC}}},
    # The kinds the Fluid and Alluxio charts render, shaped as they render them.
    "v1/Service": {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "fluid-pod-admission-webhook", "namespace": "fluid-system"},
                   "spec": {"ports": [{"port": 9443, "targetPort": 9443, "protocol": "TCP"}], "selector": {"control-plane": "fluid-webhook"}}},
    "v1/ServiceAccount": {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "dataset-controller", "namespace": "fluid-system"}},
    "apps/v1/Deployment": {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "dataset-controller", "namespace": "fluid-system"},
                           "spec": {"replicas": 1, "selector": {"matchLabels": {"control-plane": "dataset-controller"}},
                                    "template": {"metadata": {"labels": {"control-plane": "dataset-controller"}}, "spec": POD_SPEC}}},
    "apps/v1/DaemonSet": {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "csi-nodeplugin-fluid", "namespace": "fluid-system"},
                          "spec": {"selector": {"matchLabels": {"app": "csi-nodeplugin-fluid"}},
                                   "updateStrategy": {"type": "RollingUpdate"},
                                   "template": {"metadata": {"labels": {"app": "csi-nodeplugin-fluid"}}, "spec": POD_SPEC}}},
    "apps/v1/StatefulSet": {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "alluxio-master"},
                            "spec": {"serviceName": "alluxio-master", "replicas": 1, "podManagementPolicy": "Parallel",
                                     "selector": {"matchLabels": {"app": "alluxio", "role": "alluxio-master"}},
                                     "template": {"metadata": {"labels": {"app": "alluxio", "role": "alluxio-master"}}, "spec": POD_SPEC}}},
    "rbac.authorization.k8s.io/v1/ClusterRole": {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "dataset-controller"},
        "rules": [{"apiGroups": ["data.fluid.io"], "resources": ["datasets", "datasets/status"], "verbs": ["get", "list", "watch", "update"]}]},
    "rbac.authorization.k8s.io/v1/ClusterRoleBinding": {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "dataset-clusterrolebinding"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "dataset-controller"},
        "subjects": [{"kind": "ServiceAccount", "name": "dataset-controller", "namespace": "fluid-system"}]},
    "rbac.authorization.k8s.io/v1/Role": {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "dataset-controller", "namespace": "fluid-system"},
        "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]},
    "rbac.authorization.k8s.io/v1/RoleBinding": {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "dataset-controller", "namespace": "fluid-system"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "dataset-controller"},
        "subjects": [{"kind": "ServiceAccount", "name": "dataset-controller", "namespace": "fluid-system"}]},
    "storage.k8s.io/v1/CSIDriver": {"apiVersion": "storage.k8s.io/v1", "kind": "CSIDriver", "metadata": {"name": "fuse.csi.fluid.io"},
                                    "spec": {"attachRequired": False, "podInfoOnMount": True}},
    "admissionregistration.k8s.io/v1/MutatingWebhookConfiguration": {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": "fluid-pod-admission-webhook"},
        "webhooks": [{"name": "schedulepod.fluid.io", "admissionReviewVersions": ["v1"], "sideEffects": "None", "failurePolicy": "Fail",
                      "clientConfig": {"service": {"name": "fluid-pod-admission-webhook", "namespace": "fluid-system",
                                                   "path": "/mutate-fluid-io-v1alpha1-schedulepod"}},
                      "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["pods"]}],
                      "namespaceSelector": {"matchLabels": {"fluid.io/enable-injection": "true"}}}]},
    "data.fluid.io/v1alpha1/Dataset": {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": {"name": "imagenet", "namespace": "default"},
        "spec": {"mounts": [{"mountPoint": "oss://imagenet/data/", "name": "imagenet", "options": {"fs.oss.endpoint": "oss-cn-shanghai.aliyuncs.com"},
                             "encryptOptions": [{"name": "fs.oss.accessKeyId",
                                                 "valueFrom": {"secretKeyRef": {"name": "imagenet-oss", "key": "fs.oss.accessKeyId"}}}]}]}},
    "data.fluid.io/v1alpha1/AlluxioRuntime": {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "AlluxioRuntime", "metadata": {"name": "imagenet", "namespace": "default"},
        "spec": {"replicas": 4, "data": {"replicas": 1}, "properties": {"alluxio.user.block.size.bytes.default": "16MB"},
                 "tieredstore": {"levels": [{"mediumtype": "MEM", "path": "/dev/shm", "quota": "100Gi", "high": "0.95", "low": "0.7"}]},
                 "fuse": {"args": ["fuse", "--fuse-opts=kernel_cache,ro"], "resources": {"requests": {"memory": "2Gi"}}}}},
    "data.fluid.io/v1alpha1/JindoRuntime": {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "JindoRuntime", "metadata": {"name": "imagenet", "namespace": "default"},
        "spec": {"replicas": 2, "tieredstore": {"levels": [{"mediumtype": "SSD", "path": "/var/lib/docker/jindo", "quota": "180G",
                                                            "high": "0.99", "low": "0.8"}]}}},
    "data.fluid.io/v1alpha1/ThinRuntime": {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "ThinRuntime", "metadata": {"name": "imagenet-baseline", "namespace": "default"},
        "spec": {"profileName": "s3fs", "fuse": {"options": {"use_cache": "/tmp"}}}},
    "data.fluid.io/v1alpha1/ThinRuntimeProfile": {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "ThinRuntimeProfile", "metadata": {"name": "s3fs"},
        "spec": {"fileSystemType": "fuse.s3fs", "fuse": {"image": "mirror.example/fluidops/s3fs-fuse", "imageTag": "1.90",
                                                         "imagePullPolicy": "IfNotPresent", "command": ["/usr/local/bin/entry"]}}},
    "data.fluid.io/v1alpha1/DataLoad": {
        "apiVersion": "data.fluid.io/v1alpha1", "kind": "DataLoad", "metadata": {"name": "imagenet-warmup", "namespace": "default"},
        "spec": {"dataset": {"name": "imagenet", "namespace": "default"}, "loadMetadata": True,
                 "target": [{"path": "/imagenet/train", "replicas": 1}]}},
    "kubeflow.org/v2beta1/MPIJob": {
        "apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "horovod-resnet50", "namespace": "default"},
        "spec": {"slotsPerWorker": 8, "runPolicy": {"cleanPodPolicy": "Running"}, "mpiReplicaSpecs": {
            "Launcher": {"replicas": 1, "template": {"spec": {"containers": [{"name": "launcher", "image": "horovod-benchmark",
                                                                              "command": ["mpirun", "-np", "16"]}]}}},
            "Worker": {"replicas": 2, "template": {"metadata": {"labels": {"app": "horovod"}}, "spec": POD_SPEC}}}}},
    # The bundle's metrics objects, where the cluster has the Prometheus Operator's CRDs: Alluxio's scrape endpoint.
    "monitoring.coreos.com/v1/ServiceMonitor": {
        "apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor", "metadata": {"name": "imagenet-master", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"release": "imagenet", "role": "alluxio-master"}},
                 "endpoints": [{"port": "web", "path": "/metrics/prometheus/"}]}},
}


def good(key, **changes):
    """A deep copy of GOOD[key], then each change: a dotted path (list indexes as numbers) = value."""
    obj = copy.deepcopy(GOOD[key])
    for path, value in changes.items():
        *parents, last = path.split("__")
        node = obj
        for part in parents:
            node = node[int(part)] if part.isdigit() else node[part]
        node[int(last) if last.isdigit() else last] = value
    return obj


def test_every_shipped_kind_has_a_good_object_here():
    with open(os.path.join(schema_check.SCHEMAS, "index.json"), encoding="utf-8") as handle:
        assert sorted(json.load(handle)["kinds"]) == sorted(GOOD)


@pytest.mark.parametrize("key", sorted(GOOD))
def test_a_good_object_of_each_shipped_kind_passes(key):
    assert problems([GOOD[key]]) == []


def test_the_bundles_own_objects_pass():
    """What the bundle's builders write: datasets with both runtimes, NFS volumes, OSS Secrets, the MPIJob."""
    datasets = [{"name": "imagenet", "placement": "Shared", "mounts": [{"mount_point": "oss://imagenet/data/", "oss_secret": "imagenet-oss",
                                                                        "options": {"fs.oss.endpoint": "oss-cn-shanghai.aliyuncs.com"}}],
                 "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "100Gi"}],
                             "properties": {"alluxio.user.file.passive.cache.enabled": "false"}}},
                {"name": "coco", "placement": "Shared", "mounts": [{"mount_point": "pvc://nfs-coco", "name": "nfs-coco"}],
                 "runtime": {"type": "jindo", "tiers": [{"medium": "SSD", "path": "/var/lib/docker/jindo", "quota": "180G"}]}}]
    with open("roles/fluidops/defaults/main/tuning_profiles.yml", encoding="utf-8") as handle:
        profiles = yaml.safe_load(handle)["fluidops_builtin_tuning_profiles"]
    context = {"profiles": profiles, "gpu_node_count": 4, "accelerator_key": "aliyun.accelerator/nvidia_name", "accelerator": "Tesla-V100-SXM2-16GB",
               "namespace": "default", "tolerations": [{"key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}]}
    objects = fluid_dataset_manifests(datasets, context)["manifests"]
    objects += nfs_volume_manifests([{"name": "nfs-coco", "server": "nfs.example.com", "path": "/export/coco"}], "default", ["vers=3"])
    objects += store_secret_manifests({"imagenet-oss": {"access_key_id": "id", "access_key_secret": "secret"}}, "default")
    objects.append(mpijob_manifest({"launcher": "mpijob", "name": "horovod-resnet50-v2-4x8-fluid", "namespace": "default", "workers": 4,
                                    "gpus_per_worker": 8, "image": "horovod-benchmark", "working_dir": "/horovod-demo/tensorflow-demo/",
                                    "command": "./launch-example.sh 4 8", "worker_command": ["/usr/sbin/sshd", "-De"],
                                    "env": {"num_batch": "1000"}, "mount_path": "/data", "data_dir": "/data/imagenet",
                                    "claim": "imagenet", "node_selector": {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"},
                                    "tolerations": [{"key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}]}))
    assert sorted(obj["kind"] for obj in objects) == ["AlluxioRuntime", "Dataset", "Dataset", "JindoRuntime", "MPIJob",
                                                      "PersistentVolume", "PersistentVolumeClaim", "Secret"]
    assert problems(objects) == []


def test_a_bad_quantity_in_a_claim():
    claim = good("v1/PersistentVolumeClaim", spec__resources__requests__storage="10 GiB")
    assert problems([claim]) == ["PersistentVolumeClaim default/nfs-imagenet: spec.resources.requests.storage=\"10 GiB\" " + QUANTITY]


def test_a_bad_quantity_in_an_alluxio_tier_quota():
    runtime = good("data.fluid.io/v1alpha1/AlluxioRuntime")
    runtime["spec"]["tieredstore"]["levels"][0]["quota"] = "100GB"
    assert problems([runtime]) == ["AlluxioRuntime default/imagenet: spec.tieredstore.levels[0].quota=100GB " + QUANTITY]


@pytest.mark.parametrize("quantity", ["100Gi", "1.5G", "500M", "500m", "0", ".5", "1e3", "+1Ki", 1, 1.5])
def test_the_quantity_grammar_takes(quantity):
    assert problems([good("v1/PersistentVolume", spec__capacity={"storage": quantity})]) == []


@pytest.mark.parametrize("quantity", ["10 GiB", "1.5 Gi", "Gi", "10GB", "10gi", "", "10Gi\n", " 10Gi", "1,5Gi", True, [], {"Gi": 10}])
def test_the_quantity_grammar_refuses(quantity):
    found = problems([good("v1/PersistentVolume", spec__capacity={"storage": quantity})])
    assert found == ["PersistentVolume nfs-imagenet: spec.capacity.storage=%s %s" % (schema_check.show(quantity), QUANTITY)]


def test_a_string_where_a_list_is_expected():
    claim = good("v1/PersistentVolumeClaim", spec__accessModes="ReadOnlyMany")
    assert problems([claim]) == ["PersistentVolumeClaim default/nfs-imagenet: spec.accessModes=ReadOnlyMany must be a list, got a string"]
    dataset = good("data.fluid.io/v1alpha1/Dataset")
    dataset["spec"]["mounts"] = {"mountPoint": "oss://imagenet/data/"}
    assert problems([dataset]) == ['Dataset default/imagenet: spec.mounts={"mountPoint": "oss://imagenet/data/"} must be a list, got a map']


def test_an_unknown_field_names_the_fields_allowed():
    dataset = good("data.fluid.io/v1alpha1/Dataset")
    dataset["spec"]["mounts"][0]["mountpoint"] = "typo"
    assert problems([dataset]) == [
        "Dataset default/imagenet: spec.mounts[0].mountpoint=typo is not a field of Dataset spec.mounts[0] "
        "(allowed: encryptOptions, mountPoint, name, options, path, readOnly, shared)"]
    # A custom resource's metadata is ObjectMeta, as the apiserver reads it (the CRD says only "object").
    runtime = good("data.fluid.io/v1alpha1/AlluxioRuntime", metadata={"name": "imagenet", "namespace": "default", "lables": {"a": "b"}})
    assert problems([runtime])[0].startswith('AlluxioRuntime default/imagenet: metadata.lables={"a": "b"} is not a field of AlluxioRuntime '
                                             "metadata (allowed: annotations, creationTimestamp,")


def test_a_wrong_type_an_enum_and_a_missing_required_field():
    claim = good("v1/PersistentVolumeClaim")
    claim["spec"]["volumeMode"] = 3
    volume = good("v1/PersistentVolume")
    volume["spec"]["nfs"] = {"path": "/export/imagenet"}
    job = good("kubeflow.org/v2beta1/MPIJob", spec__mpiImplementation="OpenMpi")
    assert problems([claim, volume, job]) == [
        "PersistentVolumeClaim default/nfs-imagenet: spec.volumeMode=3 must be a string, got a whole number",
        "PersistentVolume nfs-imagenet: spec.nfs.server is required",
        "MPIJob default/horovod-resnet50: spec.mpiImplementation=OpenMpi is not one of OpenMPI, Intel, MPICH"]


def test_a_service_monitor_is_checked_against_the_prometheus_operators_crd():
    monitor = good("monitoring.coreos.com/v1/ServiceMonitor", spec__endpoints="web")
    assert problems([monitor]) == ["ServiceMonitor default/imagenet-master: spec.endpoints=web must be a list, got a string"]
    monitor = good("monitoring.coreos.com/v1/ServiceMonitor", spec__endpoints__0__interval="30 s")
    monitor["spec"]["endpoints"][0]["paht"] = "/metrics"
    del monitor["spec"]["selector"]
    interval, unknown, selector = problems([monitor])
    assert interval == ('ServiceMonitor default/imagenet-master: spec.endpoints[0].interval="30 s" does not match the pattern '
                        "^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$")
    assert unknown.startswith("ServiceMonitor default/imagenet-master: spec.endpoints[0].paht=/metrics is not a field of ServiceMonitor "
                              "spec.endpoints[0] (allowed: authorization, basicAuth,")
    assert selector == "ServiceMonitor default/imagenet-master: spec.selector is required"


def test_null_is_taken_for_an_optional_field():
    assert problems([good("v1/PersistentVolumeClaim", spec__storageClassName=None)]) == []
    assert problems([good("data.fluid.io/v1alpha1/AlluxioRuntime", spec__fuse=None)]) == []


def test_a_bad_namespace_name():
    claim = good("v1/PersistentVolumeClaim", metadata={"name": "nfs-imagenet", "namespace": "Team_A"})
    assert problems([claim]) == [
        "PersistentVolumeClaim Team_A/nfs-imagenet: metadata.namespace=Team_A is not a DNS-1123 label (at most 63 lower case letters, "
        "digits and '-', starting and ending with a letter or digit)"]
    # A Namespace's own name is a label too: no dots, unlike most names.
    assert problems([good("v1/Namespace", metadata={"name": "team.a"})]) == [
        "Namespace team.a: metadata.name=team.a is not a DNS-1123 label (at most 63 lower case letters, digits and '-', starting and "
        "ending with a letter or digit)"]
    assert problems([good("v1/ConfigMap", metadata={"name": "team.a", "namespace": "default"})]) == []


def test_bad_label_keys_and_values():
    node = good("v1/Node", metadata={"name": "gpu-node-1", "labels": {"fluidops.io/gpu/node": "true", "-gpu": "true", "Example.com/gpu": "x",
                                                                      "gpu-model": "Tesla V100"}})
    assert problems([node]) == [
        "Node gpu-node-1: metadata.labels has the label key fluidops.io/gpu/node, which has more than one '/'",
        "Node gpu-node-1: metadata.labels has the label key -gpu, which has a name part that is not 1-63 letters, digits, '-', '_' or '.' "
        "starting and ending with a letter or digit",
        "Node gpu-node-1: metadata.labels has the label key Example.com/gpu, which has a prefix (before '/') that is not a DNS-1123 "
        "subdomain such as example.com",
        "Node gpu-node-1: metadata.labels[gpu-model]=\"Tesla V100\" is not a label value: at most 63 letters, digits, '-', '_' or '.', "
        "starting and ending with a letter or digit, or empty"]
    # A pod template's labels too: the Job's, and those mpi-operator gives the workers' pods.
    job = good("batch/v1/Job")
    job["spec"]["template"]["metadata"]["labels"] = {"app": "x" * 64}
    mpijob = good("kubeflow.org/v2beta1/MPIJob")
    mpijob["spec"]["mpiReplicaSpecs"]["Worker"]["template"]["metadata"]["labels"] = {"a b": "x"}
    found = problems([job, mpijob])
    assert [line.split(" is ")[0].split(" has ")[0] for line in found] == [
        "Job default/warm-imagenet: spec.template.metadata.labels.app=" + "x" * 64,
        "MPIJob default/horovod-resnet50: spec.mpiReplicaSpecs.Worker.template.metadata.labels"]


def test_a_secret_value_never_appears():
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "imagenet-oss", "namespace": "default"},
              "data": {"fs.oss.accessKeySecret": "TOPSECRET-not-base64!", "count": 12345},
              "stringData": {"fs oss accessKeyId": "TOPSECRET-id", "nested": {"k": "TOPSECRET-nested"}},
              "strngData": {"fs.oss.accessKeySecret": "TOPSECRET-typo"}, "type": ["Opaque"]}
    found = problems([secret])
    assert found == [
        "Secret default/imagenet-oss: data.count=<redacted> must be a string, got a whole number",
        "Secret default/imagenet-oss: stringData.nested=<redacted> must be a string, got a map",
        "Secret default/imagenet-oss: strngData=<redacted> is not a field of Secret (allowed: apiVersion, data, immutable, kind, metadata, "
        "stringData, type)",
        'Secret default/imagenet-oss: type=["Opaque"] must be a string, got a list',  # not a secret value: shown
        "Secret default/imagenet-oss: data[fs.oss.accessKeySecret]=<redacted> is not base64 (data takes base64; stringData takes plain text)",
        "Secret default/imagenet-oss: stringData has the key \"fs oss accessKeyId\", which is not a key a Secret or ConfigMap takes: at most 253 "
        "letters, digits, '-', '_' or '.', and not . or .."]
    assert not [line for line in found if "TOPSECRET" in line]


def test_fluid_takes_only_dns_1035_labels_for_datasets_and_runtimes():
    for key in ("data.fluid.io/v1alpha1/Dataset", "data.fluid.io/v1alpha1/AlluxioRuntime", "data.fluid.io/v1alpha1/JindoRuntime",
                "data.fluid.io/v1alpha1/ThinRuntime"):
        for name in ("1k-images", "image.net"):
            kind = key.rsplit("/", 1)[1]
            assert problems([good(key, metadata={"name": name, "namespace": "default"})]) == [
                "%s default/%s: metadata.name=%s is not a DNS-1035 label (at most 63 lower case letters, digits and '-', starting with a "
                "letter and ending with a letter or digit); Fluid 1.0.8's controller refuses any other %s name and retries forever"
                % (kind, name, name, kind)]
    # Other kinds take DNS-1123 subdomains: a digit first, dots.
    assert problems([good("v1/PersistentVolumeClaim", metadata={"name": "1k-images.v2", "namespace": "default"})]) == []
    assert problems([good("data.fluid.io/v1alpha1/DataLoad", metadata={"name": "1k-images.v2", "namespace": "default"})]) == []


def test_names_the_apiserver_or_a_controller_would_refuse():
    long_name = "a" * 60
    found = problems([good("batch/v1/Job", metadata={"name": long_name + "1234", "namespace": "default"}),
                      good("data.fluid.io/v1alpha1/DataLoad", metadata={"name": "d" * 47, "namespace": "default"}),
                      good("kubeflow.org/v2beta1/MPIJob", metadata={"name": long_name, "namespace": "default"}),
                      good("v1/Pod", metadata={"name": "Read_ImageNet", "namespace": "default"}),
                      good("v1/ConfigMap", metadata={"namespace": "default"})])
    assert found == [
        "Job default/%s: metadata.name=%s is longer than 63 characters: the apiserver makes it the value of the label "
        "batch.kubernetes.io/job-name of the Job's pods" % (long_name + "1234", long_name + "1234"),
        "DataLoad default/%s: metadata.name=%s is longer than 46 characters: Fluid installs the loader as the Helm release %s-loader, and "
        "Helm takes at most 53" % ("d" * 47, "d" * 47, "d" * 47),
        "MPIJob default/%s: metadata.name=%s makes the last worker's host name %s-worker-1, which is not a DNS-1035 label (at most 63 lower "
        "case letters, digits and '-', starting with a letter and ending with a letter or digit)" % (long_name, long_name, long_name),
        "Pod default/Read_ImageNet: metadata.name=Read_ImageNet is not a DNS-1123 subdomain (at most 253 lower case letters, digits, '-' and "
        "'.', starting and ending with a letter or digit)",
        "ConfigMap default/(no name): metadata.name is required"]


def test_mpi_operators_own_checks():
    job = good("kubeflow.org/v2beta1/MPIJob", spec__runPolicy={"cleanPodPolicy": "Always"})
    specs = job["spec"]["mpiReplicaSpecs"]
    specs["worker"] = specs.pop("Launcher")
    specs["Worker"]["restartPolicy"] = "Always"
    del specs["Worker"]["replicas"]
    assert problems([job]) == [
        "MPIJob default/horovod-resnet50: spec.mpiReplicaSpecs.worker is not a replica type mpi-operator runs (Launcher, Worker)",
        "MPIJob default/horovod-resnet50: spec.mpiReplicaSpecs.Launcher is required",
        "MPIJob default/horovod-resnet50: spec.mpiReplicaSpecs.Worker.replicas=0 must be at least 1 (unset is 0)",
        "MPIJob default/horovod-resnet50: spec.mpiReplicaSpecs.Worker.restartPolicy=Always is not one of Never, OnFailure",
        "MPIJob default/horovod-resnet50: spec.runPolicy.cleanPodPolicy=Always is not one of None, Running, All"]


def test_config_map_keys():
    config = good("v1/ConfigMap", data={"a b": "1", "ok": "2"}, binaryData={"ok": "Mg=="})
    assert problems([config]) == [
        "ConfigMap default/training-env: data has the key \"a b\", which is not a key a Secret or ConfigMap takes: at most 253 letters, "
        "digits, '-', '_' or '.', and not . or ..",
        "ConfigMap default/training-env: data has the key ok, which binaryData has too"]


def test_an_unknown_kind_or_api_version_is_a_clear_problem():
    found = problems([{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"}},
                      {"apiVersion": "data.fluid.io/v1alpha2", "kind": "Dataset", "metadata": {"name": "imagenet"}},
                      "Dataset imagenet"])
    assert found[0].startswith("Widget default/w: apiVersion=example.com/v1 kind=Widget is not a kind fluidops knows the schema of "
                               "(known: admissionregistration.k8s.io/v1/MutatingWebhookConfiguration, apps/v1/DaemonSet,")
    assert found[1].startswith("Dataset imagenet: apiVersion=data.fluid.io/v1alpha2 kind=Dataset is not a kind fluidops knows the schema "
                               "of; Dataset is data.fluid.io/v1alpha1 (known: ")
    assert found[2] == "item 2: a string is not a Kubernetes object (a map with apiVersion, kind and metadata)"
    assert len(found) == 3


def test_the_filter_takes_what_templating_gives_and_refuses_what_is_not_a_list():
    documents = list(yaml.safe_load_all("---\n" + yaml.safe_dump(GOOD["v1/PersistentVolumeClaim"]) + "---\n" + yaml.safe_dump(GOOD["v1/Pod"])))
    assert schema_problems(documents) == []
    assert schema_problems([good("v1/PersistentVolumeClaim", spec__accessModes="ReadOnlyMany")]) == [
        "PersistentVolumeClaim default/nfs-imagenet: spec.accessModes=ReadOnlyMany must be a list, got a string"]
    with pytest.raises(AnsibleFilterError, match="schema_problems: expected a list of Kubernetes objects, got a map"):
        schema_problems(GOOD["v1/Pod"])


def test_without_jsonschema_the_check_says_what_to_install(monkeypatch):
    # As if it were not installed: an import of a module whose sys.modules entry is None fails.
    monkeypatch.setattr(schema_check, "_cache", {})
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    with pytest.raises(SchemaCheckError, match="need the Python package jsonschema on the controller"):
        problems([GOOD["v1/Pod"]])
