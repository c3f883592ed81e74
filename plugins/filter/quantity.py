# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters for byte quantities: to_bytes, mount_size and format_bytes."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.fluidops.accel.plugins.module_utils.quantity import (
    QuantityError,
    format_bytes,
    mount_size,
    parse_bytes,
)


def _wrap(function):
    def filter_function(value):
        try:
            return function(value)
        except QuantityError as exc:
            raise AnsibleFilterError(str(exc))

    filter_function.__name__ = function.__name__
    return filter_function


class FilterModule(object):
    def filters(self):
        return {
            "to_bytes": _wrap(parse_bytes),
            "mount_size": _wrap(mount_size),
            "format_bytes": _wrap(format_bytes),
        }
