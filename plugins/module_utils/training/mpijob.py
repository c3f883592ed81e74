# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The logic of the module fluidops.accel.mpijob: the training's MPIJob made or kept, followed to its end,
and its launcher's log read into a summary."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import datetime
import hashlib
import json

from ansible_collections.fluidops.accel.plugins.module_utils.k8s.client import ApiException, newest
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import timed_out_after, wait_for
from ansible_collections.fluidops.accel.plugins.module_utils.training.tf_cnn_log import summary

API = "kubeflow.org/v2beta1"
HASH = "fluidops.io/definition-hash"
FINISHED = ("Succeeded", "Failed")


def definition_hash(definition):
    return hashlib.sha256(json.dumps(definition.get("spec"), sort_keys=True).encode()).hexdigest()[:16]


def state_of(job):
    """The job's state from its conditions: a true Succeeded or Failed ends it; else the last true one."""
    conditions = [c for c in ((job or {}).get("status") or {}).get("conditions") or [] if c.get("status") == "True"]
    for final in FINISHED:
        if any(c.get("type") == final for c in conditions):
            return final
    return conditions[-1]["type"] if conditions else ""


def _time(text):
    """An RFC 3339 time in UTC, with or without fractional seconds."""
    return datetime.datetime.strptime(text.split(".")[0].rstrip("Z"), "%Y-%m-%dT%H:%M:%S") if text else None


def duration(job):
    status = (job or {}).get("status") or {}
    start = _time(status.get("startTime"))
    if not start:
        return None
    end = _time(status.get("completionTime")) or datetime.datetime.utcnow()
    return round((end - start).total_seconds(), 1)


JOB_LABEL = "training.kubeflow.org/job-name"
ROLE_LABEL = "training.kubeflow.org/job-role"
# Kubelet's reasons for a container that is on its way to start: not worth a word in the progress.
STARTING = ("ContainerCreating", "PodInitializing")


def job_pods(client, name, namespace):
    pods, _unused = client.list("Pod", namespace, api_version="v1", label_selector="%s=%s" % (JOB_LABEL, name))
    return pods


def _role(pod, role):
    return ((pod.get("metadata") or {}).get("labels") or {}).get(ROLE_LABEL) == role


def launcher_log(client, pods, namespace):
    """(the newest launcher pod's name, its log) or (None, None) before the launcher exists."""
    pod = newest([pod for pod in pods if _role(pod, "launcher")])
    if pod is None:
        return None, None
    if (pod.get("status") or {}).get("phase") == "Pending":
        return pod["metadata"]["name"], None
    container = pod["spec"]["containers"][0]["name"]
    try:
        return pod["metadata"]["name"], client.pod_log(pod["metadata"]["name"], namespace, container=container)
    except ApiException as error:
        if error.status != 400:  # the container has no log yet ("waiting to start", "no logs found")
            raise
        return pod["metadata"]["name"], None


def workers_failed(job):
    """How many of the job's workers mpi-operator counts as failed (status.replicaStatuses)."""
    return ((((job or {}).get("status") or {}).get("replicaStatuses") or {}).get("Worker") or {}).get("failed") or 0


def _short(text, limit=300):
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _ended(container):
    """"<container>: <reason>, exit code <n>: <message>" for a container that ended, else None."""
    ended = (container.get("state") or {}).get("terminated")
    if not ended:
        return None
    text = "%s: %s, exit code %s" % (container.get("name"), ended.get("reason"), ended.get("exitCode"))
    return text + (": " + _short(ended.get("message")) if ended.get("message") else "")


def _held(container):
    """"<reason>[: <message>]" for a container held before it starts, else None."""
    held = (container.get("state") or {}).get("waiting") or {}
    if not held.get("reason") or held["reason"] in STARTING:
        return None
    return "%s: %s" % (held["reason"], _short(held.get("message"), 160)) if held.get("message") else held["reason"]


def failed_worker(pods):
    """The first worker pod that failed, but for an eviction (mpi-operator fails the job for that
    itself), as "<pod> (<its containers' ends>)"; or None."""
    for pod in sorted((p for p in pods if _role(p, "worker")), key=lambda p: p["metadata"]["name"]):
        status = pod.get("status") or {}
        if status.get("phase") != "Failed" or status.get("reason") == "Evicted":
            continue
        ends = [text for text in map(_ended, status.get("containerStatuses") or []) if text]
        return "%s (%s)" % (pod["metadata"]["name"], "; ".join(ends) or _short(status.get("message")) or status.get("reason"))
    return None


def waiting(pods):
    """What holds each of the job's pods that has not started: its containers' waiting reasons
    other than starting (ImagePullBackOff, CreateContainerConfigError, ...) and the scheduler's
    reason for a pod it cannot place."""
    found = []
    for pod in sorted(pods, key=lambda p: p["metadata"]["name"]):
        status = pod.get("status") or {}
        containers = (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or [])
        reasons = [text for text in map(_held, containers) if text]
        reasons += ["%s: %s" % (c.get("reason"), _short(c.get("message"), 160)) for c in status.get("conditions") or []
                    if c.get("type") == "PodScheduled" and c.get("status") == "False" and c.get("reason")]
        if reasons:
            found.append("%s %s" % (pod["metadata"]["name"], "; ".join(reasons)))
    return found


def cannot_start(namespace, name, definition, failed):
    """Why the job will never start with a failed worker, and what to look at."""
    workers = ((definition.get("spec") or {}).get("mpiReplicaSpecs") or {}).get("Worker") or {}
    containers = ((workers.get("template") or {}).get("spec") or {}).get("containers") or [{}]
    command = " ".join(containers[0].get("command") or []) or "their image's entrypoint"
    return ("MPIJob %s/%s cannot start: worker %s failed. mpi-operator v2beta1 does not replace a failed worker, so the job "
            "would wait to the end of its timeout: delete it (state=absent) once the workers are fixed. The workers run %s: "
            "the launcher's mpirun reaches them over SSH, so their image needs the SSH server there (an image made for "
            "Arena's older launcher, which started the ranks with kubectl exec, may have none: use Arena's launcher on a "
            "cluster that runs Arena's operator, or an image with OpenSSH)" % (namespace, name, failed, command))


def execute_module(module, client):
    params = module.params
    definition = copy.deepcopy(params["definition"])
    meta = definition.get("metadata") or {}
    name, namespace = meta.get("name"), meta.get("namespace") or "default"
    if definition.get("apiVersion") != API or definition.get("kind") != "MPIJob" or not name:
        module.fail_json(msg="definition must be a %s MPIJob with metadata.name (got apiVersion=%s, kind=%s, name=%s)" % (
            API, definition.get("apiVersion"), definition.get("kind"), name))
    meta.setdefault("annotations", {})[HASH] = definition_hash(definition)
    meta["namespace"] = namespace
    definition["metadata"] = meta
    existing = client.get("MPIJob", name, namespace, api_version=API)

    if params["state"] == "absent":
        if existing and not module.check_mode:
            client.delete("MPIJob", name, namespace, api_version=API)
        module.exit_json(changed=bool(existing), state=state_of(existing), conditions=[], timed_out=False, **client.counts())

    changed = False
    if existing:
        have = ((existing.get("metadata") or {}).get("annotations") or {}).get(HASH)
        if have != meta["annotations"][HASH]:
            module.fail_json(msg="MPIJob %s/%s exists from another definition (%s): a job is not replaced under a running "
                                 "training; delete it (state=absent) or give a new name" % (
                                     namespace, name, "hash %s, not %s" % (have, meta["annotations"][HASH]) if have
                                     else "not created by this module"), **client.counts())
        job = existing
    elif module.check_mode:
        module.exit_json(changed=True, state="", mpijob=definition, conditions=[], timed_out=False, **client.counts())
    else:
        job = client.create("MPIJob", definition, namespace, api_version=API)
        changed = True

    timed_out = False
    if params["wait"] and not module.check_mode and state_of(job) not in FINISHED:
        # A failed worker ends the wait too: mpi-operator counts it in the job's status.
        found, done = wait_for(client, "MPIJob", namespace, [name], lambda obj: state_of(obj) in FINISHED or workers_failed(obj),
                               params["wait_timeout"], api_version=API)
        job = found[name] or job
        timed_out = not done

    pods = job_pods(client, name, namespace)
    launcher, log = launcher_log(client, pods, namespace)
    result = dict(changed=changed, state=state_of(job), duration_seconds=duration(job), launcher=launcher,
                  conditions=((job.get("status") or {}).get("conditions") or []), timed_out=timed_out, mpijob=definition,
                  waiting=waiting(pods))
    if log is not None:
        result["throughput"] = summary(log, params["log_step"])
    result["api_calls"] = len(client.calls)

    if result["state"] == "Failed":
        tail = "\n".join((log or "").splitlines()[-10:])
        module.fail_json(msg="MPIJob %s/%s Failed: %s; launcher %s's last lines:\n%s" % (
            namespace, name, "; ".join("%s: %s" % (c.get("reason"), c.get("message")) for c in result["conditions"]
                                       if c.get("type") == "Failed"), launcher, tail), **result)
    failed = failed_worker(pods) if result["state"] not in FINISHED else None
    if failed:
        module.fail_json(msg=cannot_start(namespace, name, definition, failed), **result)
    if timed_out and params["fail_on_timeout"]:
        module.fail_json(msg="%s: MPIJob %s/%s is %s%s" % (timed_out_after(params["wait_timeout"]), namespace, name,
                                                           result["state"] or "not started",
                                                           "; " + "; ".join(result["waiting"]) if result["waiting"] else ""),
                         **result)
    module.exit_json(**result)
