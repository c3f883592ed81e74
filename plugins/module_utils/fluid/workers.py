# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The logic of the module fluidops.accel.fluid_runtime_workers: the cache workers of datasets'
runtimes scaled (their spec.replicas), then waited on until they are Ready and, for an
AlluxioRuntime, the dataset's cache capacity counts each of them.

Fluid 1.0.8 reads an AlluxioRuntime's cache capacity from the Alluxio master's ``fsadmin report
capacity`` (pkg/ddc/alluxio/report.go), which counts the workers registered with it: the capacity
grows when a new worker registers, and shrinks only once the master gives up a stopped worker,
after ``alluxio.master.worker.timeout`` (5min by default).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError, require
from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import QuantityError, format_bytes, parse_bytes
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.dataset_info import find_runtime, why_not_ready
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import FLUID_API
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.status import size
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import timed_out_after, wait_for

SCALABLE = ("AlluxioRuntime", "JindoRuntime")
# The Alluxio property that says how long its master counts a worker that stopped answering.
WORKER_TIMEOUT = "alluxio.master.worker.timeout"
WORKER_TIMEOUT_DEFAULT = "5min"


def _quantity(value, where):
    try:
        return parse_bytes(value)
    except QuantityError:
        raise InputError("%s=%s is not a byte quantity such as 32Mi or 100Gi" % (where, value)) from None


def worker_capacity(runtime):
    """The bytes one cache worker of ``runtime`` holds, as Fluid gives each worker its tiers
    (pkg/ddc/base/runtime.go): over the tieredstore's levels, a level's quotaList (one quota a
    path) when it has one, else its quota, which Fluid divides equally among the level's paths.
    None when the runtime has no levels."""
    meta = runtime["metadata"]
    levels = ((runtime.get("spec") or {}).get("tieredstore") or {}).get("levels") or []
    if not levels:
        return None
    total = 0
    for index, level in enumerate(levels):
        where = "%s %s/%s spec.tieredstore.levels[%d]" % (runtime["kind"], meta["namespace"], meta["name"], index)
        paths = len(str(level.get("path") or "").split(","))
        if level.get("quotaList"):
            total += sum(_quantity(quota.strip(), where + ".quotaList") for quota in str(level["quotaList"]).split(","))
        else:
            require(level.get("quota") not in (None, ""), "%s has neither quota nor quotaList" % where)
            total += _quantity(level["quota"], where + ".quota") // paths * paths
    return total


def target_of(client, dataset, replicas):
    """What a dataset's runtime should become: {name, namespace, kind, runtime (as just read),
    previous_replicas, replicas, per_worker (bytes, AlluxioRuntime only)}. Raises InputError for
    a dataset without cache workers to scale."""
    meta = dataset["metadata"]
    where = "%s/%s" % (meta["namespace"], meta["name"])
    runtime = find_runtime(client, dataset)
    require(runtime is not None, "dataset %s has no runtime: no AlluxioRuntime or JindoRuntime named %s in %s to scale"
            % (where, meta["name"], meta["namespace"]))
    kind = runtime["kind"]
    require(kind != "ThinRuntime", "%s is a ThinRuntime, which runs no cache workers to scale" % where)
    require(kind in SCALABLE, "%s is a %s: this module scales the cache workers of %s" % (where, kind, " and ".join(SCALABLE)))
    previous = (runtime.get("spec") or {}).get("replicas") or 0
    return {"name": meta["name"], "namespace": meta["namespace"], "kind": kind, "runtime": runtime, "previous_replicas": previous,
            "replicas": previous if replicas is None else replicas,
            "per_worker": worker_capacity(runtime) if kind == "AlluxioRuntime" else None}


def expected_capacity(target):
    """The dataset's cache capacity once every worker counts, as Fluid writes it; None when not foreseen."""
    return None if target["per_worker"] is None else format_bytes(target["replicas"] * target["per_worker"])


def shown_capacity(dataset):
    """The dataset's cache capacity as Fluid writes sizes (two decimals of a binary unit), or None."""
    capacity = size(((dataset.get("status") or {}).get("cacheStates") or {}).get("cacheCapacity"))
    return None if capacity is None else format_bytes(capacity)


def workers_ready(runtime):
    return ((runtime or {}).get("status") or {}).get("workerNumberReady") or 0


def all_ready(target, runtime):
    return workers_ready(runtime) == target["replicas"]


def capacity_reached(target, dataset):
    """Compared as Fluid writes sizes: two decimals are all it keeps of the master's report."""
    expected = expected_capacity(target)
    return expected is None or shown_capacity(dataset) == expected


def reached(target, dataset, runtime):
    return capacity_reached(target, dataset) and all_ready(target, runtime)


class WorkersCheck(object):
    """The wait's predicate, on each Dataset: its cache capacity as expected (no request), then its
    runtime's workers all Ready, the runtime read for it; ``runtimes`` keeps the last one read of each.
    The waiter checks every dataset again as it leaves a watch and as it returns: a runtime read
    less than ``FRESH_SECONDS`` ago is not read again."""

    FRESH_SECONDS = 1

    def __init__(self, client, targets):
        self.client = client
        self.targets = {target["name"]: target for target in targets}
        self.runtimes = {target["name"]: target["runtime"] for target in targets}
        self.read_at = {}

    def runtime(self, target):
        name = target["name"]
        if self.client.clock() - self.read_at.get(name, float("-inf")) >= self.FRESH_SECONDS:
            self.runtimes[name] = self.client.get(target["kind"], name, target["namespace"], api_version=FLUID_API)
            self.read_at[name] = self.client.clock()
        return self.runtimes[name]

    def done(self, dataset):
        target = self.targets[dataset["metadata"]["name"]]
        return capacity_reached(target, dataset) and all_ready(target, self.runtime(target))


def lagging(client, target, dataset, runtime):
    """(what a dataset not there yet shows, in words; why_not_ready's reasons)."""
    ready, wanted = workers_ready(runtime), target["replicas"]
    text = "%s: %d of %d cache workers Ready" % (target["name"], ready, wanted) if ready <= wanted else \
        "%s: %d cache workers Ready, %d wanted" % (target["name"], ready, wanted)
    expected, capacity = expected_capacity(target), shown_capacity(dataset)
    if expected is not None:
        text += ", cache capacity %s" % (capacity or "not reported yet")
        if capacity != expected:
            text += ", waiting for %s" % expected
        if ready == wanted and capacity is not None and parse_bytes(capacity) > parse_bytes(expected):
            timeout = (((runtime or {}).get("spec") or {}).get("properties") or {}).get(WORKER_TIMEOUT)
            text += (" (Alluxio's master keeps counting a stopped worker until %s (%s) has passed)"
                     % (WORKER_TIMEOUT, "%s on this runtime" % timeout if timeout else "%s by default" % WORKER_TIMEOUT_DEFAULT))
    reasons = why_not_ready(client, dataset, runtime)
    if reasons.get("pods_not_ready"):
        text += "; pods not ready: " + ", ".join(reasons["pods_not_ready"])
    events = reasons.get("events", []) + reasons.get("runtime_events", [])
    if events:
        text += "; events: " + " | ".join(events)
    return text, reasons


def summary(target, dataset, runtime):
    """One entry of the module's ``runtimes``."""
    return {"name": target["name"], "namespace": target["namespace"], "kind": target["kind"], "replicas": target["replicas"],
            "previous_replicas": target["previous_replicas"], "workers_ready": workers_ready(runtime),
            "cache_capacity": ((dataset.get("status") or {}).get("cacheStates") or {}).get("cacheCapacity") or None,
            "expected_cache_capacity": expected_capacity(target)}


def execute_module(module, client):
    params = module.params
    namespace = params["namespace"]
    names = list(dict.fromkeys(params["name"]))
    listed = client.list("Dataset", namespace, api_version=FLUID_API)
    datasets = {item["metadata"]["name"]: item for item in listed[0]}
    missing = [name for name in names if name not in datasets]
    if missing:
        module.fail_json(msg="Dataset %s not found in namespace %s (datasets there: %s)" % (
            ", ".join(missing), namespace, ", ".join(sorted(datasets)) or "none"), **client.counts())
    targets, problems = [], []
    for name in names:
        try:
            targets.append(target_of(client, datasets[name], params["replicas"]))
        except InputError as error:
            problems.append(str(error))
    if problems:  # every dataset checked before any runtime changes
        module.fail_json(msg="; ".join(problems), **client.counts())

    patched = [target["name"] for target in targets if target["replicas"] != target["previous_replicas"]]
    if not module.check_mode:
        for target in targets:
            if target["name"] in patched:
                target["runtime"] = client.patch(target["kind"], target["name"], namespace, {"spec": {"replicas": target["replicas"]}},
                                                 api_version=FLUID_API)

    seconds, timed_out = 0.0, False
    runtimes = {target["name"]: target["runtime"] for target in targets}
    # Already there (the runtimes just read or patched say so): nothing to wait for.
    there = all(reached(target, datasets[target["name"]], target["runtime"]) for target in targets)
    if params["wait"] and not module.check_mode and not there:
        check = WorkersCheck(client, targets)
        started = client.clock()
        found, done = wait_for(client, "Dataset", namespace, names, check.done, params["wait_timeout"], api_version=FLUID_API,
                               listed=listed)
        seconds, timed_out = round(client.clock() - started, 1), not done
        gone = [name for name in names if found[name] is None]
        if gone:
            module.fail_json(msg="Dataset %s deleted in namespace %s while waiting for its cache workers" % (", ".join(gone), namespace),
                             **client.counts())
        datasets.update(found)
        # Done, the last check read every runtime; else what the slice ends on is read again.
        runtimes = check.runtimes if done else {
            target["name"]: client.get(target["kind"], target["name"], namespace, api_version=FLUID_API) for target in targets}

    result = dict(changed=bool(patched), patched=patched, seconds=seconds, timed_out=timed_out,
                  runtimes=[summary(target, datasets[target["name"]], runtimes[target["name"]]) for target in targets])
    if timed_out and params["fail_on_timeout"]:
        late, reasons = [], {}
        for target in targets:
            dataset, runtime = datasets[target["name"]], runtimes[target["name"]]
            if not reached(target, dataset, runtime):
                text, reasons[target["name"]] = lagging(client, target, dataset, runtime)
                late.append(text)
        module.fail_json(msg="%s waiting for the cache workers: %s" % (timed_out_after(params["wait_timeout"]), ". ".join(late)),
                         reasons=reasons, **dict(result, **client.counts()))
    module.exit_json(**dict(result, **client.counts()))
