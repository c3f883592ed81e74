# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Numbers from Fluid status objects: what ``kubectl get dataset`` and ``kubectl get
alluxioruntime`` show, as bytes, percentages and counts a playbook can compare.

Fluid writes sizes as strings (``143.67GiB``, ``0.00B``, ``648.00GiB``) and percentages as
``"87.5%"``; a fresh Dataset has no ``cacheStates`` yet, and a runtime that is still starting
has no phases. Missing or malformed values become ``None``, never an exception: a status
report must work while the cluster is half ready.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import QuantityError, format_bytes, parse_bytes

RUNTIME_KINDS = {"alluxio": "AlluxioRuntime", "jindo": "JindoRuntime", "goosefs": "GooseFSRuntime",
                 "juicefs": "JuiceFSRuntime", "thin": "ThinRuntime", "efc": "EFCRuntime", "vineyard": "VineyardRuntime"}
_PERCENT = re.compile(r"^\s*(-?[0-9]+(?:\.[0-9]+)?)\s*%?\s*$")
HIT_RATIOS = ("cacheHitRatio", "localHitRatio", "remoteHitRatio", "cacheThroughputRatio",
              "localThroughputRatio", "remoteThroughputRatio")


def percentage(value):
    """``"87.5%"`` -> 87.5; ``None`` for a missing or malformed value."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    match = _PERCENT.match(str(value))
    return float(match.group(1)) if match else None


def size(value):
    """``"143.67GiB"`` -> bytes as an int; ``None`` for a missing or malformed value."""
    if value in (None, ""):
        return None
    try:
        return parse_bytes(value)
    except QuantityError:
        return None


def conditions(status):
    return [{key: condition.get(key) for key in ("type", "status", "reason", "message", "lastTransitionTime")}
            for condition in (status or {}).get("conditions") or []]


def runtime_kind(dataset):
    """The runtime kind bound to a Dataset (status.runtimes), or None before it binds."""
    for runtime in (dataset.get("status") or {}).get("runtimes") or []:
        kind = RUNTIME_KINDS.get(str(runtime.get("type", "")).lower())
        if kind:
            return kind
    return None


def runtime_summary(runtime):
    """Phases and pod counts of a runtime object (AlluxioRuntime, JindoRuntime, ...)."""
    if not runtime:
        return None
    status = runtime.get("status") or {}
    summary = {"kind": runtime.get("kind"), "name": runtime["metadata"]["name"], "conditions": conditions(status)}
    for role in ("master", "worker", "fuse"):
        summary[role] = {
            "phase": status.get(role + "Phase") or None,
            "ready": status.get(role + "NumberReady"),
            "desired": status.get("desired%sNumberScheduled" % role.capitalize()),
            "scheduled": status.get("current%sNumberScheduled" % role.capitalize()),
        }
    return summary


def dataset_summary(dataset, runtime=None):
    """What an operator reads off a Dataset (and its runtime), as numbers."""
    status = dataset.get("status") or {}
    states = status.get("cacheStates") or {}
    meta = dataset["metadata"]
    summary = {
        "name": meta["name"],
        "namespace": meta.get("namespace"),
        "phase": status.get("phase") or "",
        "ufs_total": status.get("ufsTotal"),
        "ufs_total_bytes": size(status.get("ufsTotal")),
        "cached": states.get("cached"),
        "cached_bytes": size(states.get("cached")),
        "cache_capacity": states.get("cacheCapacity"),
        "cache_capacity_bytes": size(states.get("cacheCapacity")),
        "cached_percentage": percentage(states.get("cachedPercentage")),
        "hit_ratios": {key: percentage(states.get(key)) for key in HIT_RATIOS if key in states},
        "file_num": status.get("fileNum"),
        "runtime_kind": runtime_kind(dataset),
        "conditions": conditions(status),
        "runtime": runtime_summary(runtime),
    }
    return summary


def table(summaries):
    """Two tables, each narrow enough for a terminal: the columns of ``kubectl get dataset``, then
    those of ``kubectl get alluxioruntime`` with ready/desired counts and the cache hit ratio."""
    datasets = [("NAME", "UFS TOTAL SIZE", "CACHED", "CACHE CAPACITY", "CACHED PERCENTAGE", "PHASE")]
    runtimes = [("NAME", "RUNTIME", "MASTER", "WORKER", "FUSE", "HIT RATIO")]
    for item in summaries:
        percent = item.get("cached_percentage")
        # Fluid's: bytes read from the cache among all bytes read, over its last minute (pkg/ddc/alluxio/report.go).
        hits = (item.get("hit_ratios") or {}).get("cacheHitRatio")
        datasets.append((item["name"], _shown(item, "ufs_total"), _shown(item, "cached"), _shown(item, "cache_capacity"),
                         "-" if percent is None else "%.1f%%" % percent, item.get("phase") or "-"))
        runtime = item.get("runtime") or {}
        runtimes.append((item["name"], runtime.get("kind") or "-", _role(runtime, "master"), _role(runtime, "worker"), _role(runtime, "fuse"),
                         "-" if hits is None else "%.1f%%" % hits))
    return _columns(datasets) + "\n\n" + _columns(runtimes)


def _role(runtime, name):
    part = runtime.get(name) or {}
    if not part.get("phase"):
        return "-"
    counts = [part.get(key) for key in ("ready", "desired")]
    return "%s %s" % (part["phase"], "/".join("?" if count is None else str(count) for count in counts))


def _columns(rows):
    widths = [max(len(str(row[column])) for row in rows) for column in range(len(rows[0]))]
    return "\n".join("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)


def _shown(item, key):
    """A size normalised to two decimals of a binary unit, as Fluid writes them."""
    value = item.get(key + "_bytes")
    return "-" if value is None else format_bytes(value)
