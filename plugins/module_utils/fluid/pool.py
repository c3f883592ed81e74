# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The runtimes a GPU node joining or leaving the pool changes: those whose dataset's placement
covers the node, with the replicas the datasets' variables give for the pool after the change.

A runtime's workers run where the Dataset's ``nodeAffinity`` allows (Fluid copies it into the
worker StatefulSet's required node affinity): a node covers a dataset when its labels satisfy one
of the affinity's terms, as the scheduler reads ``nodeSelectorTerms``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import CACHELESS, RUNTIMES

# The runtimes whose cache workers a pool change scales.
SCALED = tuple(kind for name, kind in sorted(RUNTIMES.items()) if name not in CACHELESS)


def _matches(expression, labels):
    key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
    if operator == "In":
        return key in labels and labels[key] in values
    if operator == "NotIn":
        return key not in labels or labels[key] not in values
    if operator == "Exists":
        return key in labels
    if operator == "DoesNotExist":
        return key not in labels
    raise ValueError("node affinity operator %s is not one the bundle writes" % operator)


def covers(dataset, labels):
    """Whether a node with ``labels`` may run the cache workers of ``dataset`` (a Dataset manifest)."""
    terms = ((dataset.get("spec", {}).get("nodeAffinity") or {}).get("required") or {}).get("nodeSelectorTerms") or []
    # No terms: any node. Terms are ORed, their expressions ANDed.
    return not terms or any(all(_matches(e, labels) for e in term.get("matchExpressions") or []) for term in terms)


def pool_runtimes(manifests, nodes, existing=None):
    """[{name, namespace, kind, replicas}] of the runtimes among ``manifests`` (the datasets'
    objects as the pool after the change builds them) whose dataset covers one of ``nodes``
    (their labels, {key: value} each), sorted by namespace and name. With ``existing`` (the
    cluster's Dataset objects), only those of datasets the cluster has: one not made yet gets the
    pool's replicas when the datasets phase makes it."""
    made = None if existing is None else {(d["metadata"].get("namespace"), d["metadata"]["name"]) for d in existing}
    datasets = {(m["metadata"]["namespace"], m["metadata"]["name"]): m for m in manifests
                if m["kind"] == "Dataset" and (made is None or (m["metadata"]["namespace"], m["metadata"]["name"]) in made)}
    found = []
    for runtime in manifests:
        key = (runtime["metadata"].get("namespace"), runtime["metadata"]["name"])
        if runtime["kind"] in SCALED and key in datasets and any(covers(datasets[key], labels) for labels in nodes):
            found.append({"namespace": key[0], "name": key[1], "kind": runtime["kind"], "replicas": runtime["spec"]["replicas"]})
    return sorted(found, key=lambda item: (item["namespace"], item["name"]))
