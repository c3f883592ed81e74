#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: fluid_dataload
short_description: Warm a Fluid dataset's cache with a DataLoad and check how much got cached
version_added: 1.0.0
author: fluidops contributors (!UNKNOWN)
description:
  - Creates a Fluid C(DataLoad) for a dataset, idempotent by name - a DataLoad of that name and the same
    spec is left alone (and waited for), one with another spec fails the task rather than being changed
    under a running load.
  - Waits (bounded by I(wait_timeout)) until the DataLoad is C(Complete), following a watch, then reads the
    dataset and checks its cached percentage against I(cached_percentage).
  - Fluid copies the cache states into the dataset only when the runtime controller reconciles, so the figure
    read at C(Complete) can be one taken before the load ended; below I(cached_percentage), the module follows
    the dataset for up to I(cache_refresh_timeout) seconds after the DataLoad completed before it fails.
  - A figure above 100 is followed within the same window, as Alluxio counts the room a worker holds for blocks still
    being written as used, so a figure read during the load can pass 100 and fall back once they are committed;
    one still above 100 when the window closes is taken as it is.
  - Returns the phase, the duration, the bytes loaded and the bytes loaded per second.
  - A C(Failed) DataLoad fails the task with the DataLoad's own conditions and the last lines of its loader pod's log.
  - The action plugin of the same name prints the DataLoad phase and the dataset's cached percentage every
    I(progress_interval) seconds while it waits.
  - In check mode nothing is created and nothing waits; the task reports whether it would create the DataLoad.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - fluidops.accel.sliced_wait
options:
  name:
    description: Name of the DataLoad.
    type: str
    required: true
  namespace:
    description: Namespace of the DataLoad and of its dataset (Fluid requires the same one).
    type: str
    default: default
  dataset:
    description: Name of the Fluid dataset to warm.
    type: str
    required: true
  targets:
    description: Paths to load, with the number of cached replicas of each; empty loads the whole dataset.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Path in the dataset's Alluxio namespace, where Fluid mounts each mount under C(/<mount name>), such as C(/imagenet/train).
        type: str
        required: true
      replicas:
        description: Cached copies of each block of the path.
        type: int
        default: 1
  load_metadata:
    description: Sync the dataset's metadata from the under-filesystem before loading.
    type: bool
    default: false
  tolerations:
    description:
      - Node taints (C(key), C(value), C(effect)) the loader pod tolerates, as the GPU nodes' taints are listed in
        C(fluidops_gpu_node_taints); C(Equal) when a value is given, else C(Exists).
    type: list
    elements: dict
    default: []
  policy:
    description: C(Once) loads once; C(Cron) loads on I(schedule); C(OnEvent) on Fluid's events.
    type: str
    choices: [Once, Cron, OnEvent]
    default: Once
  schedule:
    description: Cron schedule, required with I(policy=Cron).
    type: str
  state:
    description: C(present) creates the DataLoad; C(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  wait:
    description: Wait until the DataLoad is Complete (only for I(policy=Once)).
  wait_timeout:
    default: 1800
  cached_percentage:
    description: After Complete, the cached percentage (0-100) the dataset must have, or the task fails.
    type: float
  cache_refresh_timeout:
    description:
      - Seconds after the DataLoad completed that the dataset's cached percentage has to reach I(cached_percentage).
      - Fluid's runtime controller refreshes a dataset's cache states when it reconciles, every 90 seconds when
        nothing else wakes it (C(FLUID_RUNTIME_RECONCILE_DURATION)); the default leaves room for one such round.
      - Counted from the C(Complete) condition's C(lastTransitionTime), so a wait split into slices by the action
        plugin is not extended; within I(wait_timeout).
    type: int
    default: 120
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Warm the ImageNet cache and require 95% cached
  fluidops.accel.fluid_dataload:
    name: imagenet-warmup
    dataset: imagenet
    targets:
      - {path: /imagenet/train, replicas: 1}
      - {path: /imagenet/validation, replicas: 1}
    load_metadata: true
    cached_percentage: 95
    wait_timeout: 3600
  register: warmup

- name: Reload new files every night
  fluidops.accel.fluid_dataload:
    name: imagenet-nightly
    dataset: imagenet
    policy: Cron
    schedule: "0 2 * * *"
"""

RETURN = r"""
phase:
  description: The DataLoad's phase when the module returned (Pending, Executing, Complete, Failed).
  returned: always
  type: str
  sample: Complete
duration:
  description: C(status.duration) as Fluid wrote it.
  returned: when the DataLoad has one
  type: str
  sample: 4m12s
seconds:
  description: Seconds the module waited.
  returned: always
  type: float
cached_bytes_before:
  description: The dataset's cached bytes before the wait.
  returned: always
  type: int
bytes_loaded:
  description: Cached bytes gained while waiting.
  returned: always
  type: int
bytes_per_second:
  description: I(bytes_loaded) over I(seconds); null when nothing was waited for.
  returned: always
  type: float
cached_percentage:
  description: The dataset's cached percentage at the end.
  returned: always
  type: float
timed_out:
  description: True when the wait ran out (only returned without failing when I(fail_on_timeout=false)).
  returned: always
  type: bool
conditions:
  description: The DataLoad's conditions.
  returned: always
  type: list
dataload:
  description: The DataLoad object as the API returned it (the one it would create, in check mode).
  returned: success
  type: dict
api_calls:
  description: API requests the module made.
  returned: always
  type: int
reconnects:
  description: Attempts to list again after a wait's watch connection dropped (a pause between refused ones); the wait then watches on.
  returned: always
  type: int
"""

import calendar
import time

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import FLUID_API
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.status import conditions, dataset_summary
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.client import ApiException, log_tail
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.objects import tolerations_of
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import timed_out_after, wait_for

FINISHED = ("Complete", "Failed")


def spec():
    return ModuleSpec.sliced_wait(1800, dict(
        name=dict(type="str", required=True),
        namespace=dict(type="str", default="default"),
        dataset=dict(type="str", required=True),
        targets=dict(type="list", elements="dict", default=[], options=dict(
            path=dict(type="str", required=True), replicas=dict(type="int", default=1))),
        load_metadata=dict(type="bool", default=False),
        tolerations=dict(type="list", elements="dict", default=[]),
        policy=dict(type="str", choices=["Once", "Cron", "OnEvent"], default="Once"),
        schedule=dict(type="str"),
        state=dict(type="str", choices=["present", "absent"], default="present"),
        cached_percentage=dict(type="float"),
        cache_refresh_timeout=dict(type="int", default=120),
    ), bounds=dict(cached_percentage=(0, 100), cache_refresh_timeout=(0, None, "seconds")),
        required_if=[("policy", "Cron", ("schedule",))])


def desired_spec(params):
    spec = {"dataset": {"name": params["dataset"], "namespace": params["namespace"]},
            "loadMetadata": params["load_metadata"], "policy": params["policy"]}
    if params["targets"]:
        spec["target"] = [{"path": t["path"], "replicas": t["replicas"]} for t in params["targets"]]
    if params["schedule"]:
        spec["schedule"] = params["schedule"]
    if params["tolerations"]:
        spec["tolerations"] = tolerations_of(params["tolerations"], "tolerations")
    return spec


def spec_differences(existing, wanted):
    """The managed fields where an existing DataLoad differs from the one asked for."""
    current = existing.get("spec") or {}
    differences = []
    for key, value in wanted.items():
        have = current.get(key)
        if key == "dataset":
            have = {"name": (have or {}).get("name"), "namespace": (have or {}).get("namespace") or existing["metadata"]["namespace"]}
        if key == "policy":
            have = have or "Once"
        if key == "loadMetadata":
            have = bool(have)
        if key == "target":
            have = [{"path": t.get("path"), "replicas": t.get("replicas", 1)} for t in have or []]
        if have != value:
            differences.append("%s is %s, not %s" % (key, have, value))
    return differences


def phase_of(dataload):
    return ((dataload or {}).get("status") or {}).get("phase") or ""


def completed_seconds_ago(dataload, now=None):
    """Seconds since the DataLoad's Complete condition last changed, by its lastTransitionTime; 0 when
    it has none (or the clocks disagree), so the refresh wait then counts from now."""
    for condition in ((dataload or {}).get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Complete" and condition.get("lastTransitionTime"):
            try:
                moment = calendar.timegm(time.strptime(condition["lastTransitionTime"], "%Y-%m-%dT%H:%M:%SZ"))
            except ValueError:
                return 0.0
            return max(0.0, (time.time() if now is None else now) - moment)
    return 0.0


def below(summary, threshold):
    return threshold is not None and (summary["cached_percentage"] or 0.0) < threshold


def unsettled(summary, threshold):
    """Below the threshold, or above 100 %: Alluxio counts the room its worker holds for blocks still
    being written as used, so a figure read during the load can pass 100 % (144.4 % of 9 MiB seen on
    the local cluster) and fall back once they are committed."""
    return threshold is not None and not threshold <= (summary["cached_percentage"] or 0.0) <= 100.0


def loader_log_tail(client, name, namespace, lines=5):
    """``; loader pod P's last lines: ...`` from the newest pod of the DataLoad's loader Job (Fluid's
    fluid-dataloader chart labels them release=<name>-loader, role=dataload-pod), or ""."""
    try:
        pod = client.newest_pod(namespace, "release=%s-loader,role=dataload-pod" % name)
    except ApiException:
        return ""  # the log is a hint; the conditions above are the answer
    text = log_tail(client, pod["metadata"]["name"], namespace, lines) if pod else ""
    return "; loader pod %s's last lines: %s" % (pod["metadata"]["name"], text) if text else ""


def execute_module(module, client):
    params = module.params
    namespace, name = params["namespace"], params["name"]
    existing = client.get("DataLoad", name, namespace, api_version=FLUID_API)

    if params["state"] == "absent":
        if existing and not module.check_mode:
            client.delete("DataLoad", name, namespace, api_version=FLUID_API)
        module.exit_json(changed=bool(existing), phase=phase_of(existing), **client.counts())

    dataset = client.get("Dataset", params["dataset"], namespace, api_version=FLUID_API)
    if dataset is None:
        datasets, _unused = client.list("Dataset", namespace, api_version=FLUID_API)
        module.fail_json(msg="Dataset %s not found in namespace %s (datasets there: %s): a DataLoad warms an existing dataset "
                             "in its own namespace" % (params["dataset"], namespace,
                                                       ", ".join(sorted(d["metadata"]["name"] for d in datasets)) or "none"),
                         **client.counts())
    before = dataset_summary(dataset)

    wanted = desired_spec(params)
    body = {"apiVersion": FLUID_API, "kind": "DataLoad", "metadata": {"name": name, "namespace": namespace}, "spec": wanted}
    changed = False
    if existing:
        differences = spec_differences(existing, wanted)
        if differences:
            module.fail_json(msg="DataLoad %s/%s exists with another spec (%s): a DataLoad is not changed under a running load; "
                                 "delete it (state=absent) or give a new name" % (namespace, name, "; ".join(differences)),
                             **client.counts())
        dataload = existing
    elif module.check_mode:
        module.exit_json(changed=True, phase="", dataload=body, cached_percentage=before["cached_percentage"],
                         cached_bytes_before=before["cached_bytes"], bytes_loaded=0, bytes_per_second=None, seconds=0.0,
                         timed_out=False, conditions=[], **client.counts())
    else:
        dataload = client.create("DataLoad", body, namespace, api_version=FLUID_API)
        changed = True

    seconds, timed_out = 0.0, False
    waits = params["wait"] and params["policy"] == "Once" and not module.check_mode
    if waits and phase_of(dataload) not in FINISHED:
        started = client.clock()
        found, done = wait_for(client, "DataLoad", namespace, [name], lambda obj: phase_of(obj) in FINISHED, params["wait_timeout"],
                               api_version=FLUID_API)
        dataload = found[name] or dataload
        seconds, timed_out = round(client.clock() - started, 1), not done

    after = dataset_summary(client.get("Dataset", params["dataset"], namespace, api_version=FLUID_API) or dataset)
    threshold = params["cached_percentage"]
    refresh_waited = 0.0
    if waits and phase_of(dataload) == "Complete" and unsettled(after, threshold) and not timed_out:
        # The dataset's figure may predate the load's end: follow it until the refresh window closes.
        refresh_left = params["cache_refresh_timeout"] - completed_seconds_ago(dataload)
        slice_left = params["wait_timeout"] - seconds
        if refresh_left > 0:
            done = False
            if slice_left > 0:
                started = client.clock()
                found, done = wait_for(client, "Dataset", namespace, [params["dataset"]],
                                       lambda obj: not unsettled(dataset_summary(obj), threshold), min(refresh_left, slice_left),
                                       api_version=FLUID_API)
                refresh_waited = client.clock() - started
                after = dataset_summary(found[params["dataset"]] or dataset)
                seconds = round(seconds + refresh_waited, 1)
            # The slice ran out before the refresh window did: the next slice goes on waiting.
            timed_out = not done and slice_left < refresh_left
    loaded = max(0, (after["cached_bytes"] or 0) - (before["cached_bytes"] or 0))
    status = dataload.get("status") or {}
    result = dict(changed=changed, phase=phase_of(dataload), duration=status.get("duration"), seconds=seconds,
                  cached_bytes_before=before["cached_bytes"], bytes_loaded=loaded,
                  bytes_per_second=round(loaded / seconds, 1) if seconds else None,
                  cached_percentage=after["cached_percentage"], timed_out=timed_out, conditions=conditions(status),
                  dataload=dataload, **client.counts())

    if phase_of(dataload) == "Failed":
        module.fail_json(msg="DataLoad %s/%s Failed: %s%s" % (namespace, name, "; ".join(
            "%s: %s" % (c.get("reason"), c.get("message")) for c in result["conditions"]) or "no conditions given",
            loader_log_tail(client, name, namespace)), **result)
    if timed_out:
        if params["fail_on_timeout"]:
            events = client.events("DataLoad", name, namespace)
            module.fail_json(msg="%s: DataLoad %s/%s is %s, dataset %s %s%% cached%s" % (
                timed_out_after(params["wait_timeout"]), namespace, name, phase_of(dataload) or "without a phase", params["dataset"],
                after["cached_percentage"], ("; events: " + " | ".join(events)) if events else ""), **result)
        module.exit_json(**result)
    if phase_of(dataload) == "Complete" and below(after, threshold):
        module.fail_json(msg="DataLoad %s/%s is Complete but dataset %s is %s%% cached %.0f s after it completed, below the %s%% "
                             "asked for (cache capacity %s, UFS %s): %s" % (
                                 namespace, name, params["dataset"], after["cached_percentage"],
                                 max(completed_seconds_ago(dataload), refresh_waited), threshold, after["cache_capacity"],
                                 after["ufs_total"], short_cache_advice(after, name)), **result)
    module.exit_json(**result)


def short_cache_advice(summary, name):
    """What to do about a cache below the threshold after a Complete load: a cache smaller than the
    data cannot hold it; one large enough lost blocks after the load (freed, evicted, a worker made
    again or scaled in), and a Complete DataLoad is never run again."""
    capacity, ufs = summary["cache_capacity_bytes"], summary["ufs_total_bytes"]
    if capacity is not None and ufs is not None and capacity >= ufs:
        return ("the cache holds the data but lost blocks after the load completed: delete the DataLoad %s and warm up "
                "again" % name)
    return "raise the tier quotas or the replicas, or lower cached_percentage"


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
