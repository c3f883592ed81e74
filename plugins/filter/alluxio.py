# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: alluxio_property_check, the errors and warnings of a properties map."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio_properties import check_properties


def alluxio_property_check(properties, where="properties"):
    errors, warnings = check_properties(properties, where)
    return {"errors": errors, "warnings": warnings}


class FilterModule(object):
    def filters(self):
        return {"alluxio_property_check": alluxio_property_check}
