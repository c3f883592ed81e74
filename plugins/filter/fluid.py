# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: fluid_dataset_manifests, the Fluid objects of a datasets_list."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.fluidops.accel.plugins.module_utils.fluid_manifests import DatasetError, build_dataset


def fluid_dataset_manifests(datasets, context):
    """``{"manifests": [...], "warnings": [...]}`` for every dataset, or an error naming the bad variable."""
    manifests, warnings = [], []
    try:
        for index, item in enumerate(datasets or []):
            built = build_dataset(item, index, context)
            manifests.extend(built["manifests"])
            warnings.extend(built["warnings"])
    except DatasetError as exc:
        raise AnsibleFilterError(str(exc))
    return {"manifests": manifests, "warnings": warnings}


class FilterModule(object):
    def filters(self):
        return {"fluid_dataset_manifests": fluid_dataset_manifests}
