# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters for Alluxio: property checks, the standalone chart's values and its credentials file."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.chart import build_values, oss_site_properties, site_properties
from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.properties import check_properties
from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError
from ansible_collections.fluidops.accel.plugins.module_utils.common.stores import STORES


def alluxio_property_check(properties, where="properties"):
    errors, warnings = check_properties(properties, where)
    return {"errors": errors, "warnings": warnings}


def alluxio_chart_values(params):
    """``{"values": ..., "warnings": [...]}`` for the Alluxio chart, or an error naming the bad variable."""
    try:
        return build_values(params)
    except InputError as exc:
        raise AnsibleFilterError(str(exc)) from exc


def alluxio_oss_site_properties(credentials):
    """``{access_key_id, access_key_secret}`` as the alluxio-site.properties a Secret holds."""
    missing = [key for key in ("access_key_id", "access_key_secret") if not credentials.get(key)]
    if missing:
        raise AnsibleFilterError("alluxio_oss_credentials lacks %s" % " and ".join(missing))
    return oss_site_properties(credentials)


def alluxio_site_properties(credentials, store="oss"):
    """``{access_key_id, access_key_secret}`` of the root under-store ``store`` (oss or s3) as the
    alluxio-site.properties a Secret holds."""
    if store not in STORES:
        raise AnsibleFilterError("alluxio_site_properties: store=%s is not one of %s" % (store, ", ".join(STORES)))
    missing = [key for key in ("access_key_id", "access_key_secret") if not credentials.get(key)]
    if missing:
        raise AnsibleFilterError("alluxio_%s_credentials lacks %s" % (store, " and ".join(missing)))
    return site_properties(credentials, store)


class FilterModule(object):
    def filters(self):
        return {
            "alluxio_property_check": alluxio_property_check,
            "alluxio_chart_values": alluxio_chart_values,
            "alluxio_oss_site_properties": alluxio_oss_site_properties,
            "alluxio_site_properties": alluxio_site_properties,
        }
