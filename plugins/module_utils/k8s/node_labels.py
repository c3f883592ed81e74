# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The merge patch that gives a Kubernetes node the labels and taints a GPU host asks for, or
None when the node already has them: pure functions, so the module makes one list for all the
nodes and patches only those that differ.

What the role manages is recorded on the node in two annotations, ``fluidops.io/managed-labels``
and ``fluidops.io/managed-taints`` (comma-separated keys). A label or taint key dropped from the
variables stays listed there until ``remove_dropped`` removes it; taints set by others are kept.
A node leaving the GPU pool (``state: absent``) loses every label and taint listed there, and the
two annotations.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

MANAGED_LABELS = "fluidops.io/managed-labels"
MANAGED_TAINTS = "fluidops.io/managed-taints"


def _keys(annotation):
    return [key for key in (annotation or "").split(",") if key]


def _taint(taint):
    """A taint as the API server returns it: no empty fields."""
    return {key: value for key, value in taint.items() if value not in (None, "")}


def _compared(taints):
    """Taints as two runs compare them: timeAdded is the API server's, never asked for."""
    return [{key: value for key, value in taint.items() if key != "timeAdded"} for taint in taints]


def desired_patch(node, labels, taints, remove_dropped=False):
    """The merge patch (a dict) for ``node`` (the Node as a dict) to carry ``labels`` ({key:
    value}) and ``taints`` ([{key, value, effect}]), keeping the taints others set; None when
    applying it would change nothing."""
    meta = node.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    current_labels = meta.get("labels") or {}
    current_taints = [_taint(t) for t in (node.get("spec") or {}).get("taints") or []]
    previous, previous_taints = _keys(annotations.get(MANAGED_LABELS)), _keys(annotations.get(MANAGED_TAINTS))
    wanted_taints = [_taint(t) for t in taints]
    taint_keys = [t["key"] for t in wanted_taints]

    patch_labels = dict(labels)
    if remove_dropped:
        patch_labels.update({key: None for key in previous if key not in labels})
    managed_labels = ",".join(sorted(set(labels) | (set() if remove_dropped else set(previous))))
    managed_taints = ",".join(sorted(set(taint_keys) | (set() if remove_dropped else set(previous_taints))))
    # Taints are one list: the ones others set stay, the ones this role manages are replaced.
    replaced = set(taint_keys) | (set(previous_taints) if remove_dropped else set())
    new_taints = [t for t in current_taints if t.get("key") not in replaced] + wanted_taints

    unchanged = (all(current_labels.get(key) == value for key, value in patch_labels.items() if value is not None)
                 and not [key for key, value in patch_labels.items() if value is None and key in current_labels]
                 and annotations.get(MANAGED_LABELS, "") == managed_labels
                 and annotations.get(MANAGED_TAINTS, "") == managed_taints
                 and _compared(current_taints) == _compared(new_taints))
    if unchanged:
        return None
    return {"metadata": {"annotations": {MANAGED_LABELS: managed_labels, MANAGED_TAINTS: managed_taints}, "labels": patch_labels},
            "spec": {"taints": new_taints}}


def absent_patch(node):
    """The merge patch that takes off ``node`` every label and taint the annotations list as
    managed, and the annotations; None when it carries none of them."""
    meta = node.get("metadata") or {}
    annotations = meta.get("annotations") or {}
    labels, taints = _keys(annotations.get(MANAGED_LABELS)), _keys(annotations.get(MANAGED_TAINTS))
    current_taints = (node.get("spec") or {}).get("taints") or []
    kept = [_taint(t) for t in current_taints if t.get("key") not in taints]
    if MANAGED_LABELS not in annotations and MANAGED_TAINTS not in annotations:
        return None
    patch = {"metadata": {"annotations": {MANAGED_LABELS: None, MANAGED_TAINTS: None},
                          "labels": {key: None for key in labels if key in (meta.get("labels") or {})}}}
    if len(kept) != len(current_taints):
        patch["spec"] = {"taints": kept}
    return patch


def plan(nodes, wanted):
    """({node name: patch} for the nodes that differ, [messages for the hosts whose node does not
    exist]) from the listed ``nodes`` and ``wanted`` ([{host, name, labels, taints,
    remove_dropped, state}])."""
    by_name = {node["metadata"]["name"]: node for node in nodes}
    patches, missing = {}, []
    for entry in wanted:
        node = by_name.get(entry["name"])
        if node is None:
            missing.append("No Kubernetes node named %s for host %s: set node_labels_node_name to the node's name "
                           "(kubectl get nodes)." % (entry["name"], entry.get("host") or entry["name"]))
            continue
        if entry.get("state") == "absent":
            patch = absent_patch(node)
        else:
            patch = desired_patch(node, entry.get("labels") or {}, entry.get("taints") or [], entry.get("remove_dropped", False))
        if patch is not None:
            patches[entry["name"]] = patch
    return patches, missing
