# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The logic of the module fluidops.accel.fluid_dataload: a DataLoad made once, followed to its end, and the
dataset's cached figure read after it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import time

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import FLUID_API
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.status import conditions, dataset_summary
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.client import ApiException, log_tail
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.objects import tolerations_of
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import timed_out_after, wait_for

FINISHED = ("Complete", "Failed")


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
