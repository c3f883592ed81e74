# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: pods_using_claims, which pods mount which of a set of PVCs."""

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


class FilterModule(object):
    def filters(self):
        return {"pods_using_claims": pods_using_claims}
