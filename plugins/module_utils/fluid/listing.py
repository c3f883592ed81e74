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

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import FLUID_API
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.client import log_tail
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.objects import tolerations_of
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import timed_out_after, wait_for

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


def listing_pods(client, params):
    pods, _unused = client.list("Pod", params["namespace"], api_version="v1", label_selector="fluidops.io/listing=%s" % params["name"])
    return pods


def pods_found(client, params):
    """{node: files} from the logs of the Job's pods (the count is a pod's last line), and a note on
    each that failed."""
    files, failures = {}, []
    for pod in listing_pods(client, params):
        node = (pod.get("spec") or {}).get("nodeName") or "(not scheduled)"
        phase = (pod.get("status") or {}).get("phase")
        if phase == "Succeeded":
            found = files_found(log_tail(client, pod["metadata"]["name"], params["namespace"], lines=1))
            if found is not None:
                files[node] = found
        elif phase == "Failed":
            log = log_tail(client, pod["metadata"]["name"], params["namespace"])
            failures.append("pod %s on %s: %s" % (pod["metadata"]["name"], node, log or "no log"))
    return files, failures


def pods_waiting(client, params):
    """What each of the Job's unfinished pods waits on: its phase and the reason of its first
    condition or container state that gives one (unschedulable, a FUSE mount that never came)."""
    waiting = []
    for pod in listing_pods(client, params):
        status = pod.get("status") or {}
        if status.get("phase") in ("Succeeded", "Failed"):
            continue
        reasons = ["%s: %s" % (c.get("reason"), c.get("message")) for c in status.get("conditions") or [] if c.get("status") != "True" and c.get("reason")]
        reasons += ["%s: %s" % (s["state"]["waiting"].get("reason"), s["state"]["waiting"].get("message") or "")
                    for s in status.get("containerStatuses") or [] if (s.get("state") or {}).get("waiting")]
        waiting.append("pod %s on %s %s%s" % (pod["metadata"]["name"], (pod.get("spec") or {}).get("nodeName") or "no node",
                                              status.get("phase") or "Pending", (" (%s)" % "; ".join(reasons)) if reasons else ""))
    return waiting


def execute_module(module, client):
    params = module.params
    namespace, name = params["namespace"], params["name"]
    dataset = client.get("Dataset", params["dataset"], namespace, api_version=FLUID_API)
    if dataset is None:
        module.fail_json(msg="Dataset %s not found in namespace %s: the listing reads a dataset's claim" % (params["dataset"], namespace),
                         **client.counts())
    selector = ",".join("%s=%s" % item for item in sorted(params["node_selector"].items()))
    found, _unused = client.list("Node", None, api_version="v1", label_selector=selector)
    nodes = schedulable(found)
    if not nodes:
        module.fail_json(msg="no Ready, schedulable node has the labels %s (node_selector) to list dataset %s on" % (selector, params["dataset"]),
                         **client.counts())
    record = record_of(params, nodes)
    result = dict(changed=False, listed=False, nodes=nodes, seconds=0.0, timed_out=False, progress=job_progress(None))
    if ((dataset.get("metadata") or {}).get("annotations") or {}).get(RECORD) == record:
        module.exit_json(**dict(result, **client.counts()))
    result.update(changed=True, listed=True)
    job = client.get("Job", name, namespace, api_version="batch/v1")
    if module.check_mode:
        module.exit_json(**dict(result, **client.counts()))
    if job is not None and job_finished(job) != "Complete" and job["spec"].get("completions") != len(nodes):
        # One started for other nodes (a node joined or left since): it goes, and a new one lists.
        client.delete("Job", name, namespace, api_version="batch/v1", propagation="Background")
        job = None
    if job is None:
        image = params["image"]
        if not image:
            daemonsets, _unused = client.list("DaemonSet", namespace, api_version="apps/v1")
            image = fuse_image(daemonsets, params["dataset"])
            if not image:
                module.fail_json(msg="dataset %s has no FUSE DaemonSet in namespace %s to take the listing's image from (is its runtime "
                                     "ready?): give image" % (params["dataset"], namespace), **client.counts())
        job = client.create("Job", job_body(params, len(nodes), image, tolerations_of(params["tolerations"], "tolerations")),
                            namespace, api_version="batch/v1")
    if params["wait"] and not job_finished(job):
        started = client.clock()
        seen, done = wait_for(client, "Job", namespace, [name], job_finished, params["wait_timeout"], api_version="batch/v1")
        job = seen[name] or job
        result.update(seconds=round(client.clock() - started, 1), timed_out=not done)
    result["progress"] = job_progress(job)
    finished = job_finished(job)
    if finished:
        files, failures = pods_found(client, params)
        client.delete("Job", name, namespace, api_version="batch/v1", propagation="Background")
        if finished == "Failed":
            module.fail_json(msg="the listing of dataset %s failed: %s" % (params["dataset"], "; ".join(failures) or "the Job Failed"),
                             **dict(result, **client.counts()))
        client.patch("Dataset", params["dataset"], namespace, {"metadata": {"annotations": {RECORD: record}}}, api_version=FLUID_API)
        module.exit_json(**dict(result, files=files, **client.counts()))
    if result["timed_out"] and params["fail_on_timeout"]:
        module.fail_json(msg="%s: the listing of dataset %s: %s of %d nodes done; %s" % (
            timed_out_after(params["wait_timeout"]), params["dataset"], result["progress"]["succeeded"], len(nodes),
            "; ".join(pods_waiting(client, params)) or "no pod yet"), **dict(result, **client.counts()))
    module.exit_json(**dict(result, **client.counts()))
