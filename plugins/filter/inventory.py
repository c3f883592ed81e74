# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: what only the whole inventory shows to be wrong (preflight)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.common import inventory as checks


def _dicts(items):
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def inventory_problems(inventory):
    """Messages for references that do not resolve, duplicate names, namespaces the API refuses and
    cache tiers larger than the GPU nodes' cache mounts; empty when there are none."""
    namespace = inventory.get("namespace")
    datasets = inventory.get("datasets") or []
    nfs_volumes = inventory.get("nfs_volumes") or []
    spaces = [("fluidops_namespace", namespace)]
    for variable, items in (("datasets_list", datasets), ("datasets_nfs_volumes", nfs_volumes)):
        spaces += [("%s[%d].namespace" % (variable, index), item["namespace"])
                   for index, item in enumerate(items if isinstance(items, list) else []) if isinstance(item, dict) and "namespace" in item]
    for store in ("oss", "s3"):
        spaces += [("datasets_%s_secrets[%s].namespace" % (store, name), value["namespace"])
                   for name, value in sorted((inventory.get(store + "_secrets") or {}).items())
                   if isinstance(value, dict) and "namespace" in value]
    runtimes = []
    if inventory.get("engine") == "alluxio":
        runtimes.append(("alluxio_tiers", _dicts(inventory.get("alluxio_tiers")), False))
    for index, item in enumerate(_dicts(datasets)):
        runtime = item.get("runtime") if isinstance(item.get("runtime"), dict) else {}
        runtimes.append(("datasets_list[%d] (%s).runtime.tiers" % (index, item.get("name")), _dicts(runtime.get("tiers")),
                         item.get("placement") == "Shared"))
    return (checks.namespace_problems(spaces)
            + checks.duplicate_problems(_dicts(datasets), _dicts(nfs_volumes), namespace)
            + checks.reference_problems(_dicts(datasets), _dicts(nfs_volumes), inventory.get("external_claims"), namespace,
                                        inventory.get("warmup_names"))
            + checks.tier_fit_problems(runtimes, [{"name": name, "cache_mounts": mounts} for name, mounts in zip(
                inventory.get("node_names") or [], inventory.get("node_cache_mounts") or [])]))


def pinned_problems(versions):
    """``versions``: {variable: [value, example]} of chart versions; those not pinned to one release."""
    return checks.pinned_problems([(variable, value, ("version", example)) for variable, (value, example) in sorted(versions.items())])


def image_problems(images):
    """``images``: {variable: image reference}; those with neither a pinned tag nor a digest."""
    return checks.image_problems(sorted(images.items()))


class FilterModule(object):
    def filters(self):
        return {"inventory_problems": inventory_problems, "pinned_problems": pinned_problems, "image_problems": image_problems}
