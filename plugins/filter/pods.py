# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: pods_using_claims, which pods mount which of a set of PVCs; pods_in_the_way, what
runs on nodes about to leave the GPU pool."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def pods_using_claims(pods, claims):
    """``[{namespace, name, claim, phase}, ...]``, one per pod and claim of ``claims`` it mounts.
    ``claims`` are refs of fluidops_datasets_model (``{claim, namespace}``; a plain name matches
    in any namespace)."""
    wanted = set()
    for ref in claims or []:
        if isinstance(ref, dict):
            wanted.add((ref.get("namespace"), ref.get("claim") or ref.get("name")))
        else:
            wanted.add((None, ref))
    found = []
    for pod in pods or []:
        namespace = pod["metadata"].get("namespace")
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
            if claim and ((namespace, claim) in wanted or (None, claim) in wanted):
                found.append({"namespace": namespace, "name": pod["metadata"]["name"], "claim": claim,
                              "phase": (pod.get("status") or {}).get("phase", "Unknown")})
    return found


# mpi-operator labels every pod of an MPIJob with its job's name (v2beta1: pkg/controller/mpi_job_controller.go
# defaultLabels); Arena's jobs run through it too.
TRAINING_JOB_LABEL = "training.kubeflow.org/job-name"


def pods_in_the_way(pods, claims):
    """What a node leaving the pool would break: ``[{namespace, name, node, phase, job, claims}]``
    of the running or pending ``pods`` that belong to a training job (``job``: its name) or mount
    one of ``claims`` (as pods_using_claims takes them), sorted by node, namespace and name."""
    running = [pod for pod in pods or [] if (pod.get("status") or {}).get("phase") in ("Running", "Pending")]
    users = {}
    for use in pods_using_claims(running, claims):
        users.setdefault((use["namespace"], use["name"]), []).append(use["claim"])
    found = []
    for pod in running:
        meta = pod["metadata"]
        job = (meta.get("labels") or {}).get(TRAINING_JOB_LABEL)
        used = users.get((meta.get("namespace"), meta["name"]), [])
        if job or used:
            found.append({"namespace": meta.get("namespace"), "name": meta["name"], "node": (pod.get("spec") or {}).get("nodeName"),
                          "phase": pod["status"]["phase"], "job": job, "claims": used})
    return sorted(found, key=lambda item: (item["node"] or "", item["namespace"] or "", item["name"]))


class FilterModule(object):
    def filters(self):
        return {"pods_using_claims": pods_using_claims, "pods_in_the_way": pods_in_the_way}
