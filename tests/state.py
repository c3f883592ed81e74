"""What a run could change, read so that two readings compare equal when nothing was written:
a local cluster's objects and a node host's OS state."""

import hashlib
import json
import subprocess

from kubernetes import dynamic

# Every kind the playbooks create, change or delete.
KINDS = [("v1", "Namespace"), ("v1", "Secret"), ("v1", "ConfigMap"), ("v1", "PersistentVolume"), ("v1", "PersistentVolumeClaim"),
         ("apps/v1", "Deployment"), ("apps/v1", "DaemonSet"), ("apps/v1", "StatefulSet"), ("batch/v1", "Job"),
         ("data.fluid.io/v1alpha1", "Dataset"), ("data.fluid.io/v1alpha1", "AlluxioRuntime"),
         ("data.fluid.io/v1alpha1", "DataLoad"), ("kubeflow.org/v2beta1", "MPIJob")]
# What the node role would change on a host (fstab, mounts, FUSE, limits, sysctls, packages).
HOST_STATE = ("cat /etc/fstab; findmnt -rn -o TARGET,FSTYPE,OPTIONS | sort; cat /etc/fuse.conf 2>/dev/null; "
              "ls -la /etc/security/limits.d /etc/sysctl.d /var/lib/docker 2>&1; dpkg-query -W -f='${Package} ${Status}\\n' fuse3 libfuse2")


def digest(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def cluster_state(api):
    """Per object, what a write would change: its uid (re-created), its generation where it has one
    (spec written), its labels and annotations, and a Secret's or ConfigMap's data; the nodes'
    labels, taints and annotations. Status, which controllers keep writing, is left out."""
    client = dynamic.DynamicClient(api)
    state = {}
    for api_version, kind in KINDS:
        for obj in client.resources.get(api_version=api_version, kind=kind).get().to_dict()["items"]:
            meta = obj["metadata"]
            written = meta.get("generation") if "generation" in meta else digest(obj.get("data") or obj.get("spec"))
            state[(kind, meta.get("namespace"), meta["name"])] = (meta["uid"], written, meta.get("labels"), meta.get("annotations"))
    for node in client.resources.get(api_version="v1", kind="Node").get().to_dict()["items"]:
        meta = node["metadata"]
        state[("Node", None, meta["name"])] = (meta.get("labels"), (node.get("spec") or {}).get("taints"),
                                               {k: v for k, v in (meta.get("annotations") or {}).items() if k.startswith("fluidops.io/")})
    return state


def host_state(container):
    """The OS state of the node host in podman's CONTAINER."""
    return subprocess.run(["podman", "exec", container, "sh", "-c", HOST_STATE], capture_output=True, text=True, check=True).stdout
