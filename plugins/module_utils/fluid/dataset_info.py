# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The logic of the module fluidops.accel.fluid_dataset_info: datasets' state, waited on until a phase or a
cached percentage, and why one is not there yet."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import FLUID_API, RUNTIMES
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.status import dataset_summary, runtime_kind, table
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import wait_for


def dataset_done(phase, cached_percentage):
    """The predicate a wait checks on each Dataset object."""
    def done(dataset):
        summary = dataset_summary(dataset)
        if phase and summary["phase"] != phase:
            return False
        return cached_percentage is None or (summary["cached_percentage"] or 0.0) >= cached_percentage
    return done


def find_runtime(client, dataset):
    """The runtime of the same name as the dataset: the kind Fluid bound, else any the bundle makes that exists."""
    meta = dataset["metadata"]
    bound = runtime_kind(dataset)
    for kind in [bound] if bound else sorted(RUNTIMES.values()):
        runtime = client.get(kind, meta["name"], meta["namespace"], api_version=FLUID_API)
        if runtime:
            return runtime
    return None


def why_not_ready(client, dataset, runtime):
    """What an operator needs when a wait times out."""
    meta = dataset["metadata"]
    reason = {"phase": (dataset.get("status") or {}).get("phase") or "",
              "conditions": ["%s=%s %s: %s" % (c.get("type"), c.get("status"), c.get("reason", ""), c.get("message", ""))
                             for c in (dataset.get("status") or {}).get("conditions") or []],
              "events": client.events("Dataset", meta["name"], meta["namespace"])}
    if runtime is None:
        reason["runtime"] = ("no runtime named %s in %s: create an AlluxioRuntime, JindoRuntime or ThinRuntime of the dataset's name"
                             % (meta["name"], meta["namespace"]))
    else:
        status = runtime.get("status") or {}
        reason["runtime"] = "%s %s: master %s, worker %s, fuse %s" % (
            runtime["kind"], meta["name"], status.get("masterPhase") or "not started", status.get("workerPhase") or "not started",
            status.get("fusePhase") or "not started")
        reason["runtime_events"] = client.events(runtime["kind"], meta["name"], meta["namespace"])
        reason["pods_not_ready"] = client.pods_not_ready(meta["namespace"], "release=%s" % meta["name"])
    return reason


def describe(reasons):
    parts = []
    for name, reason in reasons.items():
        text = "%s: phase %s; %s" % (name, reason["phase"] or "(none)", reason["runtime"])
        if reason.get("conditions"):
            text += "; conditions: " + " | ".join(reason["conditions"])
        events = reason.get("events", []) + reason.get("runtime_events", [])
        if events:
            text += "; events: " + " | ".join(events)
        if reason.get("pods_not_ready"):
            text += "; pods not ready: " + ", ".join(reason["pods_not_ready"])
        parts.append(text)
    return ". ".join(parts)


def execute_module(module, client):
    namespace = module.params["namespace"]
    names = module.params["name"]
    listed = client.list("Dataset", namespace, api_version=FLUID_API)
    items = listed[0]
    existing = {item["metadata"]["name"]: item for item in items}
    if names:
        missing = [name for name in names if name not in existing]
        if missing:
            module.fail_json(msg="Dataset %s not found in namespace %s (datasets there: %s)" % (
                ", ".join(missing), namespace, ", ".join(sorted(existing)) or "none"), **client.counts())
    else:
        names = sorted(existing)
    datasets = {name: existing[name] for name in names}

    waited, timed_out = 0.0, False
    if module.params["wait"] and names and not module.check_mode:
        phase, percentage = module.params["wait_phase"], module.params["wait_cached_percentage"]
        started = client.clock()
        datasets, done = wait_for(client, "Dataset", namespace, names, dataset_done(phase, percentage), module.params["wait_timeout"],
                                  api_version=FLUID_API, listed=listed)
        waited, timed_out = round(client.clock() - started, 1), not done

    summaries, reasons = [], {}
    for name in names:
        dataset = datasets.get(name)
        if dataset is None:
            module.fail_json(msg="Dataset %s/%s was deleted while waiting" % (namespace, name), **client.counts())
        runtime = find_runtime(client, dataset)
        summaries.append(dataset_summary(dataset, runtime))
        if timed_out and not dataset_done(module.params["wait_phase"], module.params["wait_cached_percentage"])(dataset):
            reasons[name] = why_not_ready(client, dataset, runtime)

    result = dict(changed=False, datasets=summaries, table=table(summaries), waited=waited, **client.counts())
    if timed_out:
        wanted = " and ".join(part for part in (
            "phase %s" % module.params["wait_phase"] if module.params["wait_phase"] else "",
            "%s%% cached" % module.params["wait_cached_percentage"] if module.params["wait_cached_percentage"] is not None else "") if part)
        module.fail_json(msg="Timed out after %ss waiting for %s: %s" % (module.params["wait_timeout"], wanted, describe(reasons)),
                         reasons=reasons, **result)
    module.exit_json(**result)
