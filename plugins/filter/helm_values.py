# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter for Helm values: override_key."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def override_key(values, key, new_value):
    """A values override that sets ``key`` to ``new_value`` wherever the chart's values have it.

    Charts that repeat a setting through YAML anchors (Fluid's ``imagePrefix``) cannot be
    changed with one ``--set``; this builds the override for every place, keeping the nesting.
    """
    if isinstance(values, dict):
        override = {}
        for name, child in values.items():
            if name == key:
                override[name] = new_value
            else:
                nested = override_key(child, key, new_value)
                if nested:
                    override[name] = nested
        return override
    return {}


class FilterModule(object):
    def filters(self):
        return {"override_key": override_key}
