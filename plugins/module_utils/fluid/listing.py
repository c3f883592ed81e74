# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A dataset listed through its claim on every GPU node, after its warm-up: the Job that does it,
the record of it on the Dataset, and what each node found.

A FUSE client keeps the metadata of what was read through it: the kernel its entries and
attributes (entry_timeout, attr_timeout), Alluxio's client its metadata cache. A DataLoad fills the
workers' blocks, not those: the first epoch then asks the master for every file, from every node.
One pod per GPU node lists the dataset through the claim (``ls -lR``, a lookup and a getattr of
every file) so that each node's FUSE pod holds its metadata before the training starts; make
bench-datapath measures what it gives a first epoch.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

# The Dataset's annotation that records the listing done: a second run with the same settings
# lists nothing.
RECORD = "fluidops.io/listed"
MOUNT = "/dataset"
# Every entry's attributes, each file's line counted; the listing goes to a file first so that a
# failing ls fails the pod (a pipe would hide its status in POSIX sh).
SCRIPT = 'out=$(mktemp) || exit 1; ls -lR "$0" > "$out" || { rm -f "$out"; exit 1; }; grep -c "^-" "$out"; rm -f "$out"'
# The DaemonSet of a runtime's FUSE pods, by the name Fluid gives it: AlluxioRuntime and most
# others <runtime>-fuse (pkg/ddc/alluxio/utils.go, getFuseDaemonsetName), JindoRuntime
# <runtime>-jindofs-fuse (pkg/ddc/jindo*/utils.go).
FUSE_DAEMONSETS = ("%s-fuse", "%s-jindofs-fuse")


def record_of(params, nodes):
    """What the Dataset's annotation holds for this listing: its settings and the nodes it covered."""
    return json.dumps({"job": params["name"], "path": params["path"], "nodes": sorted(nodes)}, sort_keys=True, separators=(",", ":"))


def fuse_image(daemonsets, dataset):
    """The image of the dataset's FUSE pods, from its runtime's FUSE DaemonSet, or None: every GPU
    node that mounts the claim pulls it, and it has a shell and ls."""
    by_name = {d["metadata"]["name"]: d for d in daemonsets}
    for pattern in FUSE_DAEMONSETS:
        found = by_name.get(pattern % dataset)
        if found:
            containers = ((found.get("spec") or {}).get("template") or {}).get("spec", {}).get("containers") or []
            if containers and containers[0].get("image"):
                return containers[0]["image"]
    return None


def schedulable(nodes):
    """The names of the nodes a new pod can go to: Ready and not cordoned."""
    names = []
    for node in nodes:
        ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in (node.get("status") or {}).get("conditions") or [])
        if ready and not (node.get("spec") or {}).get("unschedulable"):
            names.append(node["metadata"]["name"])
    return sorted(names)


def job_body(params, count, image, tolerations):
    """One pod per node (anti-affinity on the host name among the Job's own pods), each listing the
    claim read-only, none retried: a listing that fails says why in its log."""
    labels = {"app.kubernetes.io/managed-by": "fluidops", "fluidops.io/listing": params["name"]}
    pod = {
        "restartPolicy": "Never",
        "nodeSelector": dict(params["node_selector"]),
        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"fluidops.io/listing": params["name"]}}, "topologyKey": "kubernetes.io/hostname"}]}},
        "containers": [{"name": "list", "image": image, "command": ["sh", "-c", SCRIPT, "%s/%s" % (MOUNT, params["path"].strip("/"))],
                        "volumeMounts": [{"name": "dataset", "mountPath": MOUNT, "readOnly": True}]}],
        "volumes": [{"name": "dataset", "persistentVolumeClaim": {"claimName": params["dataset"], "readOnly": True}}],
    }
    if tolerations:
        pod["tolerations"] = tolerations
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": params["name"], "namespace": params["namespace"], "labels": labels},
            "spec": {"completions": count, "parallelism": count, "backoffLimit": 0, "template": {"metadata": {"labels": labels}, "spec": pod}}}


def job_finished(job):
    """"Complete", "Failed" or "" by the Job's conditions."""
    for condition in ((job or {}).get("status") or {}).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return condition["type"]
    return ""


def job_progress(job):
    status = (job or {}).get("status") or {}
    return {"succeeded": status.get("succeeded") or 0, "failed": status.get("failed") or 0, "active": status.get("active") or 0}


def files_found(log):
    """The file count a listing pod printed last, or None."""
    lines = [line.strip() for line in (log or "").splitlines() if line.strip()]
    return int(lines[-1]) if lines and lines[-1].isdigit() else None
