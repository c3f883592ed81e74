# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The state of a standalone Alluxio cluster (seed 004) as numbers.

Three sources, one shape (``capacity`` and ``tiers`` in bytes, live and lost workers):
- the master's REST API, ``GET /api/v1/master/info`` (``AlluxioMasterInfo``: ``capacity``,
  ``tierCapacity``, ``workers``, ``lostWorkers``, ``version``);
- ``alluxio fsadmin report`` run in the master pod (its summary: ``Live Workers: 4``,
  ``Total Capacity: 400.00GB`` with ``Tier: MEM  Size: ...`` lines under it);
- the FUSE process's metrics (``/metrics/json/``, Dropwizard JSON), for the client page cache:
  ``Client.CacheHitRate``, ``Client.CacheBytesReadCache``, ``Client.CacheBytesRequestedExternal``
  (Alluxio names client metrics ``Client.<name>.<client id>``).
Alluxio prints sizes with 1024-based KB/MB/GB units.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import QuantityError, parse_bytes


class ReportError(ValueError):
    """Output that is not what the Alluxio version this bundle pins prints."""


_FIELD = re.compile(r"^\s*(?P<key>[A-Za-z][A-Za-z ]*?)\s*:\s*(?P<value>.*?)\s*$")
_TIER = re.compile(r"^\s*Tier:\s*(?P<tier>\S+)\s+Size:\s*(?P<size>\S+)\s*$")


def _bytes(text, where):
    try:
        return parse_bytes(text)
    except QuantityError:
        raise ReportError("%s: %r is not a size" % (where, text)) from None


def parse_fsadmin_report(text):
    """The summary of ``alluxio fsadmin report``."""
    if "Alluxio cluster summary" not in text:
        raise ReportError("not the output of `alluxio fsadmin report` (no 'Alluxio cluster summary' line): %s" % text.strip()[:200])
    report = {"capacity": {}, "tiers": {}}
    section = None
    for line in text.splitlines():
        tier = _TIER.match(line)
        if tier:
            if section is None:
                raise ReportError("a Tier line outside a capacity section: %r" % line)
            report["tiers"].setdefault(tier.group("tier"), {})[section] = _bytes(tier.group("size"), "Tier " + tier.group("tier"))
            continue
        field = _FIELD.match(line)
        if not field:
            continue
        key, value = field.group("key"), field.group("value")
        section = None
        if key in ("Total Capacity", "Used Capacity", "Free Capacity"):
            section = key.split()[0].lower()
            report["capacity"][section] = _bytes(value, key)
        elif key in ("Live Workers", "Lost Workers"):
            try:
                report[key.lower().replace(" ", "_")] = int(value)
            except ValueError:
                raise ReportError("%s: %r is not a count" % (key, value)) from None
        elif key == "Master Address":
            report["master_address"] = value
        elif key == "Version":
            report["version"] = value
        elif key == "Safe Mode":
            report["safe_mode"] = value.lower() == "true"
    for required in ("live_workers", "lost_workers"):
        if required not in report:
            raise ReportError("no '%s' line in the report" % required.replace("_", " ").title())
    if "total" not in report["capacity"]:
        raise ReportError("no 'Total Capacity' line in the report")
    report["capacity"].setdefault("free", report["capacity"]["total"] - report["capacity"].get("used", 0))
    return report


def parse_master_info(info):
    """``GET /api/v1/master/info`` (a dict) in the same shape as the fsadmin report."""
    if not isinstance(info, dict) or "capacity" not in info:
        raise ReportError("not an Alluxio master info document (no 'capacity'): %s" % str(info)[:200])
    capacity = info.get("capacity") or {}
    report = {
        "capacity": {"total": int(capacity.get("total", 0)), "used": int(capacity.get("used", 0))},
        "tiers": {tier: {"total": int(value.get("total", 0)), "used": int(value.get("used", 0))}
                  for tier, value in (info.get("tierCapacity") or {}).items()},
        "live_workers": len(info.get("workers") or []),
        "lost_workers": len(info.get("lostWorkers") or []),
        "version": info.get("version"),
        "master_address": info.get("rpcAddress"),
        "workers": [{"host": (worker.get("address") or {}).get("host"), "state": worker.get("state"),
                     "capacity_bytes": worker.get("capacityBytes"), "used_bytes": worker.get("usedBytes")}
                    for worker in info.get("workers") or []],
    }
    report["capacity"]["free"] = report["capacity"]["total"] - report["capacity"]["used"]
    return report


def _metric(section, name):
    """Values of ``name`` and ``name.<client id>`` in one section of a Dropwizard JSON document."""
    return [value for key, value in (section or {}).items() if key == name or key.startswith(name + ".")]


def client_cache_metrics(documents):
    """The client page cache over the FUSE processes' metrics documents, or None when no
    process reports one (the cache is off)."""
    read_cache = requested_external = 0
    found = False
    for document in documents:
        for section in ("meters", "counters"):
            for value in _metric(document.get(section), "Client.CacheBytesReadCache"):
                read_cache += int(value.get("count", 0))
                found = True
            for value in _metric(document.get(section), "Client.CacheBytesRequestedExternal"):
                requested_external += int(value.get("count", 0))
                found = True
    if not found:
        return None
    requested = read_cache + requested_external
    return {"bytes_read_cache": read_cache, "bytes_requested_external": requested_external,
            "hit_rate": round(100.0 * read_cache / requested, 2) if requested else None}
