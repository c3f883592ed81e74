# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: pods_using_claims, which pods mount which of a set of PVCs."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def pods_using_claims(pods, claims):
    """``["<namespace>/<pod> (<claim>, <phase>)", ...]`` for the pods whose volumes name a claim of ``claims``."""
    wanted = set(claims or [])
    found = []
    for pod in pods or []:
        for volume in (pod.get("spec") or {}).get("volumes") or []:
            claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
            if claim in wanted:
                found.append("%s/%s (%s, %s)" % (pod["metadata"].get("namespace"), pod["metadata"]["name"], claim,
                                                 (pod.get("status") or {}).get("phase", "Unknown")))
    return found


class FilterModule(object):
    def filters(self):
        return {"pods_using_claims": pods_using_claims}
