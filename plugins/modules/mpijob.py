#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: mpijob
short_description: Run a Kubeflow MPIJob (v2beta1) to the end and read its tf_cnn_benchmarks throughput
version_added: 1.0.0
author: fluidops contributors (!UNKNOWN)
description:
  - Creates the MPIJob in I(definition) (C(kubeflow.org/v2beta1), mpi-operator), idempotent by name - a job of
    that name created from the same definition is left alone and read; one from another definition fails the
    task rather than being replaced under a running training.
  - Waits (bounded by I(wait_timeout)) until the job's C(Succeeded) or C(Failed) condition is true, following a
    watch, then reads the launcher's log and returns the state, the duration and the throughput -
    images/sec at I(log_step) and at the last step, C(total images/sec), Accuracy @ 1/5.
  - A Failed job fails the task with its conditions and the launcher's last log lines.
  - A worker pod that failed (its command could not start, or ended) fails the task at once, naming the pod, its
    container's reason and message - mpi-operator v2beta1 does not replace it, so the job would otherwise wait
    until I(wait_timeout) - and says what the workers need - an SSH server, which the launcher's mpirun reaches.
  - What holds a pod that has not started (an image that cannot be pulled, a pod no node can take) is returned
    as I(waiting), shown in the progress lines and named when the wait times out.
  - The action plugin of the same name prints the job's state and the last step read every I(progress_interval) seconds.
  - With I(state=absent) deletes the job (its pods go with it).
  - In check mode nothing is created and nothing waits.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - fluidops.accel.sliced_wait
options:
  definition:
    description: The MPIJob manifest (apiVersion, kind, metadata.name and namespace, spec).
    type: dict
    required: true
  state:
    description: C(present) runs the job; C(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  wait:
    description: Wait until the job Succeeded or Failed.
  wait_timeout:
    default: 14400
  log_step:
    description: The step whose images/sec is reported as C(images_per_sec_at_step) (the seeds report step 1000).
    type: int
    default: 1000
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
notes:
  - Arena, mpi-operator v2beta1 and the training operator's v1 MPIJob share the CRD name C(mpijobs.kubeflow.org);
    this module drives the v2beta1 one. Clusters running Arena's operator use the training role's C(arena) launcher.
"""

EXAMPLES = r"""
- name: Train ResNet-50 on 4 x 8 GPUs and read its throughput
  fluidops.accel.mpijob:
    definition: "{{ lookup('ansible.builtin.template', 'mpijob.yml.j2') | from_yaml }}"
    wait_timeout: 14400
    log_step: 1000
  register: training

- name: Remove the job and its pods
  fluidops.accel.mpijob:
    definition: "{{ training.mpijob }}"
    state: absent
"""

RETURN = r"""
state:
  description: Succeeded, Failed, Running or Created (the last true condition), empty before the operator sets one.
  returned: always
  type: str
duration_seconds:
  description: From the job's startTime to its completionTime (or to now while it runs).
  returned: when the job started
  type: float
throughput:
  description:
    - The job's throughput read from the launcher's log, job-wide - images_per_sec_at_step and images_per_sec_at_last_step
      are the sums of the ranks' rates at that step (tf_cnn_benchmarks prints each rank's own rate under Horovod),
      with step_read, last_step, ranks (the job's ranks), ranks_read_at_step and ranks_read_at_last_step (fewer when
      lines were cut off; the figure is then the mean of the ranks read times ranks), tagged (mpirun --tag-output).
    - total_images_per_sec (the median of the ranks' job-wide totals), accuracy_top1, accuracy_top5, steps_read,
      estimated_seconds, simulated (the log says it was simulated) and simulated_note (its first line saying what was),
      read_mib_per_sec (each rank's read rate, where the ranks print it, as the local cluster's training image does).
  returned: when the launcher's log could be read
  type: dict
launcher:
  description: The launcher pod's name.
  returned: when it exists
  type: str
conditions:
  description: The job's conditions.
  returned: always
  type: list
waiting:
  description: For each of the job's pods held before it starts, its name and what holds it - its containers'
    waiting reasons but ContainerCreating and PodInitializing (with the kubelet's message), the scheduler's reason.
  returned: when the job was created or read
  type: list
  elements: str
timed_out:
  description: True when the wait ran out (only returned without failing when I(fail_on_timeout=false)).
  returned: always
  type: bool
api_calls:
  description: API requests the module made.
  returned: always
  type: int
reconnects:
  description: Attempts to list again after a wait's watch connection dropped (a pause between refused ones); the wait then watches on.
  returned: always
  type: int
"""

import copy
import datetime
import hashlib
import json

from ansible_collections.fluidops.accel.plugins.module_utils.k8s.client import ApiException, newest
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import timed_out_after, wait_for
from ansible_collections.fluidops.accel.plugins.module_utils.training.tf_cnn_log import summary

API = "kubeflow.org/v2beta1"
HASH = "fluidops.io/definition-hash"
FINISHED = ("Succeeded", "Failed")


def spec():
    return ModuleSpec.sliced_wait(14400, dict(
        definition=dict(type="dict", required=True),
        state=dict(type="str", choices=["present", "absent"], default="present"),
        log_step=dict(type="int", default=1000),
    ))


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


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
