# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters for byte quantities and percentages: to_bytes, mount_size, format_bytes and to_percent."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import QuantityError, format_bytes, mount_size, parse_bytes
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.status import percentage


def _wrap(function):
    def filter_function(value):
        try:
            return function(value)
        except QuantityError as exc:
            raise AnsibleFilterError(str(exc)) from exc

    filter_function.__name__ = function.__name__
    return filter_function


def to_percent(value):
    """``"87.5%"`` (as Fluid writes cachedPercentage) or 87.5 -> 87.5."""
    result = percentage(value)
    if result is None:
        raise AnsibleFilterError("%r is not a percentage such as 87.5%% or 87.5" % (value,))
    return result


class FilterModule(object):
    def filters(self):
        return {
            "to_bytes": _wrap(parse_bytes),
            "mount_size": _wrap(mount_size),
            "format_bytes": _wrap(format_bytes),
            "to_percent": to_percent,
        }
