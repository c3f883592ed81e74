# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks that only the whole inventory shows: references that must resolve, names that must be
unique, what the GPU nodes have room for, pinned versions.

Each function returns a list of messages, each naming the variable (its path), the bad value and
what is allowed, and never a credential. Per-field checks are the builders' (fluid/manifests,
alluxio/chart, training/jobs); these run on what those accept.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import NAME_RULES, is_name
from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import format_bytes, is_quantity, parse_bytes

# What a chart version or image tag must not be to count as pinned: empty, "latest", a range.
_FLOATING = re.compile(r"(?i)^(|latest|stable|main|master|nightly)$|[\^~><=*|\s]|(^|\.)x(\.|$)")


def _named(items):
    return [(index, item) for index, item in enumerate(items or []) if isinstance(item, dict) and item.get("name")]


def namespace_problems(namespaces):
    """``namespaces``: [(variable path, value)]; each must be a DNS-1123 label of 63 characters at most."""
    return ["%s=%s is not a namespace name: %s" % (where, value, NAME_RULES["label"][2])
            for where, value in namespaces
            if value is not None and not is_name(value)]


def duplicate_problems(datasets, nfs_volumes, namespace):
    """Two objects of one name in one namespace: a later one would silently replace the earlier.
    A Fluid dataset's PVC takes the dataset's name, so a dataset and an NFS baseline may not share one."""
    problems, seen = [], {}
    for variable, items in (("datasets_list", datasets), ("datasets_nfs_volumes", nfs_volumes)):
        for index, item in _named(items):
            key = (item.get("namespace") or namespace, item["name"])
            where = "%s[%d]" % (variable, index)
            if key in seen:
                problems.append("%s.name=%s is already used by %s in namespace %s: each dataset and NFS volume needs a "
                                "name of its own (both become a PersistentVolumeClaim of that name)" % (where, key[1], seen[key], key[0]))
            else:
                seen[key] = where
    for index, item in _named(datasets):
        names = [m.get("name") or m.get("mount_point") for m in item.get("mounts") or [] if isinstance(m, dict)]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            problems.append("datasets_list[%d] (%s).mounts name %s more than once: Fluid shows each mount under /<name>, "
                            "give each its own name" % (index, item["name"], ", ".join(str(n) for n in twice)))
    return problems


def reference_problems(datasets, nfs_volumes, external_claims, namespace, warmup_names=None):
    """Every ``pvc://`` mount names a claim the inventory declares (an NFS baseline or another dataset
    in its namespace) or lists in datasets_external_claims; warm-ups name datasets of datasets_list."""
    problems = []
    claims = {(i.get("namespace") or namespace, i["name"]) for _unused, i in _named(nfs_volumes)}
    claims |= {(i.get("namespace") or namespace, i["name"]) for _unused, i in _named(datasets)}
    external = set(external_claims or [])
    for index, item in _named(datasets):
        space = item.get("namespace") or namespace
        for number, mount in enumerate(item.get("mounts") or []):
            point = str((mount or {}).get("mount_point", "")) if isinstance(mount, dict) else ""
            if not point.startswith("pvc://"):
                continue
            claim = point[len("pvc://"):].split("/", 1)[0]
            if claim == item["name"]:
                problems.append("datasets_list[%d] (%s).mounts[%d].mount_point=%s is the dataset's own claim" % (
                    index, item["name"], number, point))
            elif (space, claim) not in claims and claim not in external and "%s/%s" % (space, claim) not in external:
                known = sorted(name for ns, name in claims if ns == space and name != item["name"])
                problems.append("datasets_list[%d] (%s).mounts[%d].mount_point=%s names the claim %s, which nothing declares in "
                                "namespace %s: add it to datasets_nfs_volumes, or to datasets_external_claims if it is made "
                                "outside the bundle (declared there: %s)" % (
                                    index, item["name"], number, point, claim, space, ", ".join(known) or "none"))
    names = {i["name"] for _unused, i in _named(datasets)}
    for name in warmup_names or []:
        if name not in names:
            problems.append("warmup_datasets names %s, which is not a dataset of datasets_list (%s)" % (
                name, ", ".join(sorted(names)) or "none"))
    return problems


def _tier_paths(tier):
    return [p.rstrip("/") or "/" for p in str((tier or {}).get("path", "")).split(",") if p]


def _under(path, mount):
    return path == mount or path.startswith(mount.rstrip("/") + "/")


def tier_fit_problems(runtimes, nodes):
    """A cache tier on a mount the gpu_node role makes must fit in it, on every node that has it.

    ``runtimes``: [(the tiers' variable path, [tier, ...], shared)] - a dataset runtime's or the
    standalone chart's tiers; ``shared`` runtimes may all have a worker on the same node, so their
    quotas on one mount add up (an Exclusive dataset's workers have their nodes to themselves).
    ``nodes``: [{name, cache_mounts}] with each host's gpu_node_cache_mounts. A tier of several
    paths splits its quota evenly between them, as Alluxio does. One message per problem, naming
    the nodes it holds on."""
    found = {}
    for node in nodes or []:
        mounts = [(i, m) for i, m in enumerate(node.get("cache_mounts") or [])
                  if isinstance(m, dict) and m.get("path") and is_quantity(m.get("size"))]
        for mount_index, mount in mounts:
            mount_path = str(mount["path"]).rstrip("/") or "/"
            size = parse_bytes(mount["size"])
            users, shared_total = [], 0
            for where, tiers, shared in runtimes:
                wanted = 0
                for tier_index, tier in enumerate(tiers or []):
                    paths = _tier_paths(tier)
                    on_mount = [p for p in paths if _under(p, mount_path)]
                    if not on_mount or not is_quantity(tier.get("quota")):
                        continue
                    part = parse_bytes(tier["quota"]) * len(on_mount) / len(paths)
                    wanted += part
                    if part > size:
                        found.setdefault(
                            "%s[%d].quota=%s puts %s on %s, more than the cache mount gpu_node_cache_mounts[%d].size=%s that "
                            "the gpu_node role makes there" % (where, tier_index, tier["quota"], format_bytes(part), mount_path,
                                                               mount_index, mount["size"]), []).append(node["name"])
                if wanted and shared:
                    users.append("%s (%s)" % (where, format_bytes(wanted)))
                    shared_total += wanted
            if len(users) > 1 and shared_total > size:
                found.setdefault("%s share the cache mount %s and their quotas add up to %s, more than its gpu_node_cache_mounts[%d]"
                                 ".size=%s" % (", ".join(users), mount_path, format_bytes(shared_total), mount_index, mount["size"]),
                                 []).append(node["name"])
    return ["%s on %s: lower the quota or raise the size" % (message, ", ".join(names)) for message, names in found.items()]


def gpu_problems(gpus_per_worker, nodes):
    """The training job's GPUs per worker within what each GPU node has (gpu_node_expected_gpus,
    where the inventory says it; 0 means not checked)."""
    counts = [(n["name"], int(n["gpus"])) for n in nodes or [] if str(n.get("gpus", "")).isdigit() and int(n["gpus"]) > 0]
    short = ["%s (%d)" % (name, gpus) for name, gpus in counts if gpus < gpus_per_worker]
    if short:
        return ["training_gpus_per_worker=%s is more than the GPUs of %s (gpu_node_expected_gpus): a worker takes a "
                "whole node's GPUs at most" % (gpus_per_worker, ", ".join(short))]
    return []


def pinned_problems(versions):
    """``versions``: [(variable, value, what)]; each must name one release, not a moving one."""
    problems = []
    for variable, value, what in versions:
        text = "" if value is None else str(value).strip()
        if _FLOATING.search(text):
            problems.append("%s=%s is not a pinned %s: give an exact one (such as %s), so that a second run "
                            "installs what the first did" % (variable, text or "(empty)", what[0], what[1]))
    return problems


def image_problems(images):
    """``images``: [(variable, image reference)]; each must carry a pinned tag or a digest."""
    problems = []
    for variable, image in images:
        text = str(image or "")
        name, _separator, digest = text.partition("@")
        last = name.rsplit("/", 1)[-1]
        tag = last.split(":", 1)[1] if ":" in last else ""
        if not digest and _FLOATING.search(tag):
            problems.append("%s=%s does not pin the image: give a tag other than latest (name:1.2.3) or a digest "
                            "(name@sha256:...)" % (variable, text or "(empty)"))
    return problems
