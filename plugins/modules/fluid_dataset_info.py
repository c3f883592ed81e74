#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: fluid_dataset_info
short_description: Read the cache state of Fluid datasets, and wait for Bound or a cached percentage
version_added: 1.0.0
author: fluidops contributors (!UNKNOWN)
description:
  - Reads Fluid C(Dataset) objects and the runtime bound to each (AlluxioRuntime, JindoRuntime, ...) and
    returns what C(kubectl get dataset) and C(kubectl get alluxioruntime) show, as numbers a playbook can
    compare - phase, UFS total, cached bytes, cache capacity, cached percentage, hit ratios, the master,
    worker and FUSE phases with ready and desired counts, and the conditions.
  - With I(wait), waits (bounded by I(wait_timeout)) until every dataset is in phase I(wait_phase) and, if
    I(wait_cached_percentage) is given, has at least that much cached. It lists once, then follows a watch,
    so a wait makes about one API request a minute. On a timeout the task fails with the reason - the
    dataset's conditions, the recent events of the dataset and its runtime, and the runtime's pods that
    are not ready.
  - Works on several datasets at once; each name is looked up in I(namespace).
  - In check mode it reads as usual and never waits.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  name:
    description:
      - Names of the datasets. Omit to read every dataset of I(namespace).
      - A name that does not exist fails the task, naming the datasets that do.
    type: list
    elements: str
    aliases: [names]
  namespace:
    description: Namespace of the datasets.
    type: str
    default: default
  wait:
    description: Wait until every dataset reaches I(wait_phase) (and I(wait_cached_percentage)).
    type: bool
    default: false
  wait_phase:
    description: The phase to wait for; empty to wait on the cached percentage alone.
    type: str
    default: Bound
  wait_cached_percentage:
    description: The cached percentage (0-100) to wait for, in addition to I(wait_phase).
    type: float
  wait_timeout:
    description: Seconds to wait before failing with the reason.
    type: int
    default: 300
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
notes:
  - The status of Fluid 1.0 is read as it is; sizes such as C(143.67GiB) become bytes and C("87.5%") becomes 87.5.
    Values a runtime has not reported yet are null.
"""

EXAMPLES = r"""
- name: Read the cache state of every dataset in default
  fluidops.accel.fluid_dataset_info:
    namespace: default
  register: cache

- name: Print it like kubectl get dataset
  ansible.builtin.debug:
    msg: "{{ cache.table }}"

- name: Wait until ImageNet is Bound and fully cached
  fluidops.accel.fluid_dataset_info:
    name: [imagenet]
    wait: true
    wait_cached_percentage: 100
    wait_timeout: 1800
"""

RETURN = r"""
datasets:
  description: One entry per dataset, in the order asked for.
  returned: always
  type: list
  elements: dict
  contains:
    name: {description: Dataset name., type: str, sample: imagenet}
    namespace: {description: Its namespace., type: str, sample: default}
    phase: {description: C(status.phase); empty before Fluid sets one., type: str, sample: Bound}
    ufs_total: {description: C(status.ufsTotal) as Fluid wrote it., type: str, sample: 143.67GiB}
    ufs_total_bytes: {description: The same in bytes; null when not reported., type: int, sample: 154266496040}
    cached_bytes: {description: Bytes in the cache., type: int, sample: 0}
    cache_capacity_bytes: {description: Capacity of the cache tiers over all workers., type: int, sample: 695784701952}
    cached_percentage: {description: "Cached share of the UFS, 0-100.", type: float, sample: 87.5}
    hit_ratios: {description: "The hit and throughput ratios Fluid reports, as numbers 0-100.", type: dict}
    runtime_kind: {description: The kind of the bound runtime., type: str, sample: AlluxioRuntime}
    runtime:
      description: Phases and ready/desired/scheduled counts of master, worker and fuse, and the runtime's conditions.
      type: dict
    conditions: {description: "The dataset's conditions (type, status, reason, message, lastTransitionTime).", type: list, elements: dict}
table:
  description: The datasets as C(kubectl get dataset) prints them, plus the runtime phases.
  returned: always
  type: str
waited:
  description: Seconds spent waiting (0 without I(wait) or in check mode).
  returned: always
  type: float
api_calls:
  description: API requests the module made (lists, gets and watch requests).
  returned: always
  type: int
reconnects:
  description: Attempts to list again after a wait's watch connection dropped (a pause between refused ones); the wait then watches on.
  returned: always
  type: int
reasons:
  description: On a timeout, why each dataset is not ready - conditions, events of the dataset and runtime, pods not ready.
  returned: failure
  type: dict
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import FLUID_API, RUNTIMES
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.status import dataset_summary, runtime_kind, table
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import wait_for


def spec():
    argument_spec = copy.deepcopy(AUTH_ARG_SPEC)
    argument_spec.update(
        name=dict(type="list", elements="str", aliases=["names"]),
        namespace=dict(type="str", default="default"),
        wait=dict(type="bool", default=False),
        wait_phase=dict(type="str", default="Bound"),
        wait_cached_percentage=dict(type="float"),
        wait_timeout=dict(type="int", default=300),
    )
    return ModuleSpec(argument_spec, bounds=dict(wait_timeout=(1, None, "seconds"), wait_cached_percentage=(0, 100)))


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


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
