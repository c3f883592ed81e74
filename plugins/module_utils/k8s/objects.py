# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Parts of Kubernetes objects the builders of every layer share."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import require


def tolerations_of(taints, where):
    """Kubernetes tolerations for node taints ``{key, value, effect}`` (as fluidops_gpu_node_taints
    lists them): Equal when a value is given, else Exists."""
    require(isinstance(taints, list) and all(isinstance(t, dict) and t.get("key") for t in taints),
            "%s=%s must be a list of {key, value, effect}" % (where, taints))
    return [dict({"operator": "Equal" if t.get("value") is not None else "Exists"}, **t) for t in taints]
