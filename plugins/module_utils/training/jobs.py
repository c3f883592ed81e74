# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The seeds' Horovod ResNet-50 job from the training role's variables: an MPIJob (mpi-operator
``kubeflow.org/v2beta1``) or the same job as ``arena submit mpi`` arguments, and the DATA_DIR the
job reads, derived from the claim it mounts.

Where the data is inside the claim (seeds 000-003): Fluid shows each mount of a dataset under
``/<mount name>`` (``/data/imagenet`` for seed 000's OSS mount named imagenet,
``/data/nfs-imagenet/imagenet`` for seed 003's ``pvc://nfs-imagenet`` whose export holds an
``imagenet`` directory); a plain PVC shows its volume's root (``/data/imagenet`` on the NFS
baseline), and so does a ThinRuntime's claim, where its FUSE program mounts the store itself. An
item's ``data_subdir`` names the directory below that.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath
import shlex

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError, require, typed
from ansible_collections.fluidops.accel.plugins.module_utils.common.inventory import gpu_problems, image_problems, namespace_problems
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import mount_name

MANAGED_BY = {"app.kubernetes.io/managed-by": "fluidops"}


def data_dir(claim, datasets, nfs_volumes, mount_path):
    """DATA_DIR for a job that mounts ``claim`` at ``mount_path``. ``datasets``: refs of
    fluidops_datasets_model, whose ``cache`` is false for a ThinRuntime."""
    for item in datasets or []:
        if item.get("name") == claim and item.get("cache") is False:
            return posixpath.normpath(posixpath.join(mount_path, item.get("data_subdir", "")))
        if item.get("name") == claim:
            mounts = item.get("mounts") or [{}]
            mount = mounts[0]
            inside = mount.get("path") or "/" + mount_name(mount)
            return posixpath.normpath(posixpath.join(mount_path, inside.lstrip("/"), item.get("data_subdir", "")))
    for item in nfs_volumes or []:
        if item.get("name") == claim:
            return posixpath.normpath(posixpath.join(mount_path, item.get("data_subdir", "")))
    known = [i.get("name") for i in datasets or []] + [i.get("name") for i in nfs_volumes or []]
    raise InputError("training_data_claim=%s is neither a dataset of datasets_list nor a volume of datasets_nfs_volumes "
                     "(known: %s)" % (claim, ", ".join(known) or "none"))


def check(params, gpu_nodes):
    require(params["launcher"] in ("mpijob", "arena"), "training_launcher=%s is not one of mpijob, arena" % params["launcher"])
    workers, gpus = params["workers"], params["gpus_per_worker"]
    require(isinstance(workers, int) and 1 <= workers <= gpu_nodes,
            "training_workers=%s must be between 1 and the number of GPU nodes (%d)" % (workers, gpu_nodes))
    require(isinstance(gpus, int) and 1 <= gpus <= 16, "training_gpus_per_worker=%s must be between 1 and 16" % gpus)
    require(params["name"] and len(params["name"]) <= 50,
            "training_name=%s must be a name of at most 50 characters (the pods add suffixes)" % params["name"])
    problems = (gpu_problems(gpus, [{"name": name, "gpus": count} for name, count in zip(
        params.get("node_names") or [], params.get("node_gpus") or [])])
        + image_problems([("training_image", params.get("image"))])
        + namespace_problems([("training_namespace", params.get("namespace"))]))
    require(not problems, "; ".join(problems))
    typed(params.get("env"), dict, "training_env")
    command = params.get("worker_command")
    require(isinstance(command, list) and command and all(isinstance(word, str) and word for word in command),
            "training_worker_command=%s must be a command as a list of words (mpi-operator's examples: "
            "[/usr/sbin/sshd, -De])" % (command,))
    typed(params.get("tolerations"), list, "training_tolerations")


# The versions of the MPIJob kind (CRD mpijobs.kubeflow.org) and who serves each: they share the
# CRD's name, so a cluster runs one of them.
MPIJOB_SERVERS = {"v1alpha1": "Arena's MPIJob operator", "v1alpha2": "mpi-operator before 0.3",
                  "v1": "the Kubeflow training operator", "v2beta1": "mpi-operator"}


def launcher_problems(launcher, mpijob_crd):
    """Why the cluster cannot run the job that ``launcher`` creates, from its CRD mpijobs.kubeflow.org
    (None when it has none). Arena's launcher submits through its CLI, which its operator serves."""
    if launcher != "mpijob":
        return []
    served = [v.get("name") for v in ((mpijob_crd or {}).get("spec") or {}).get("versions") or [] if v.get("served")]
    if "v2beta1" in served:
        return []
    if mpijob_crd is None:
        found = "it has no CustomResourceDefinition mpijobs.kubeflow.org"
    else:
        found = "its CustomResourceDefinition mpijobs.kubeflow.org serves %s" % (", ".join(
            "%s (%s)" % (version, MPIJOB_SERVERS.get(version, "an operator this bundle does not know")) for version in served)
            or "no version")
    other = ("; or set training_launcher=arena: the cluster runs Arena's operator" if "v1alpha1" in served
             else "; or set training_launcher=arena on a cluster that runs Arena's operator")
    return ["training_launcher=mpijob creates a kubeflow.org/v2beta1 MPIJob, which mpi-operator serves, but the cluster "
            "does not serve it: %s. Install mpi-operator (v0.7.0: its manifests/overlays/standalone) in its place%s"
            % (found, other)]


def _env(params):
    env = dict(params.get("env") or {})
    env["DATA_DIR"] = params["data_dir"]
    return [{"name": str(k), "value": str(v)} for k, v in sorted(env.items())]


def mpijob_manifest(params):
    """The MPIJob: a launcher running the command, ``workers`` workers serving SSH (the worker
    command: mpi-operator v2beta1's launcher runs mpirun, which starts the ranks over SSH with the
    key it mounts at /root/.ssh, as its examples/v2beta1 do) with their GPUs and the
    data claim (on the workers only, so a finished launcher holds no volume), both on the GPU
    nodes (node selector) and tolerating their taints. The claim is mounted HostToContainer, as
    Fluid's webhook mounts it for FUSE recovery: a FUSE mount the CSI plugin binds again after a
    FUSE restart reaches the running worker."""
    labels = dict(MANAGED_BY, **{"fluidops.io/data-claim": params["claim"]})
    container = {"image": params["image"], "workingDir": params["working_dir"], "env": _env(params)}
    launcher = dict(container, name="launcher", command=["/bin/sh", "-c", params["command"]],
                    resources={"requests": {"cpu": "1", "memory": "2Gi"}})
    placement = {}
    if params.get("node_selector"):
        placement["nodeSelector"] = {str(k): str(v) for k, v in params["node_selector"].items()}
    if params.get("tolerations"):
        placement["tolerations"] = [dict({"operator": "Equal" if t.get("value") is not None else "Exists"}, **t)
                                    for t in params["tolerations"]]
    worker = dict(container, name="worker", command=list(params["worker_command"]),
                  resources={"limits": {"nvidia.com/gpu": str(params["gpus_per_worker"])}},
                  volumeMounts=[{"name": "data", "mountPath": params["mount_path"], "mountPropagation": "HostToContainer"}])
    return {
        "apiVersion": "kubeflow.org/v2beta1",
        "kind": "MPIJob",
        "metadata": {"name": params["name"], "namespace": params["namespace"], "labels": labels},
        "spec": {
            "slotsPerWorker": params["gpus_per_worker"],
            "runPolicy": {"cleanPodPolicy": "Running"},
            # mpirun reaches every worker once: its sshd must be up before the launcher starts.
            "launcherCreationPolicy": "WaitForWorkersReady",
            "mpiImplementation": "OpenMPI",
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": {"metadata": {"labels": labels},
                                                         "spec": dict(placement, containers=[launcher])}},
                "Worker": {"replicas": params["workers"], "template": {"metadata": {"labels": labels}, "spec": dict(
                    placement, containers=[worker],
                    volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": params["claim"]}}])}},
            },
        },
    }


def arena_submit_args(params):
    """``arena submit mpi`` as the seeds run it, labelled as the bundle's (Arena 0.15's --label),
    for clusters with Arena's operator."""
    args = [params.get("arena_binary", "arena"), "submit", "mpi", "--name", params["name"], "--namespace", params["namespace"],
            "--gpus=%d" % params["gpus_per_worker"], "--workers=%d" % params["workers"],
            "--working-dir=%s" % params["working_dir"], "--data", "%s:%s" % (params["claim"], params["mount_path"])]
    for item in _env(params):
        args += ["-e", "%s=%s" % (item["name"], item["value"])]
    # Arena puts its labels on the MPIJob it creates: the teardown finds the bundle's jobs by it.
    args += ["--label=%s=%s" % item for item in sorted(MANAGED_BY.items())]
    return args + ["--image=%s" % params["image"]] + shlex.split(params["command"])
