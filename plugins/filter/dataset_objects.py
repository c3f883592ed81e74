# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: the Kubernetes objects of the datasets role (Fluid datasets and runtimes, ThinRuntime
profiles, NFS volumes) and what is wrong with their variables. The stores' key Secrets: store_secrets.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError, typed
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import (
    build_dataset,
    build_nfs_volume,
    build_thin_profile,
    check_placement,
)
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.metrics import check_fuse_ports
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.pool import pool_runtimes
from ansible_collections.fluidops.accel.plugins.plugin_utils.schema_check import require_accepted


def fluid_dataset_manifests(datasets, context):
    """``{"manifests": [...], "warnings": [...]}`` for every ThinRuntime profile (first: the
    runtimes name them) and every dataset, or an error naming the bad variable. ``context``: as
    build_dataset takes it, with ``image_registry`` (fluidops_image_registry) for the profiles' images."""
    manifests, warnings, runtimes = [], [], []
    try:
        for index, item in enumerate(typed(context.get("thin_profiles"), list, "datasets_thin_profiles", default=[])):
            profile = build_thin_profile(item, index, context.get("image_registry") or "")
            name = profile["metadata"]["name"]
            if any(other["metadata"]["name"] == name for other in manifests):
                raise InputError("datasets_thin_profiles[%d] (%s): the name is given twice" % (index, name))
            require_accepted([profile], "datasets_thin_profiles[%d] (%s)" % (index, name))
            manifests.append(profile)
        for index, item in enumerate(datasets or []):
            built = build_dataset(item, index, context)
            require_accepted(built["manifests"], "datasets_list[%d] (%s)" % (index, item.get("name")))
            manifests.extend(built["manifests"])
            warnings.extend(built["warnings"])
            runtimes.append(("datasets_list[%d] (%s)" % (index, item.get("name")), built["manifests"][1]))
        check_placement(manifests, context["gpu_node_count"])
        check_fuse_ports(runtimes)
    except InputError as exc:
        raise AnsibleFilterError(str(exc)) from exc
    return {"manifests": manifests, "warnings": warnings}


def fluid_dataset_problems(datasets, context):
    """What is wrong with the datasets, as a list of messages naming the variable (the first
    problem found; empty when ``fluid_dataset_manifests`` would build them). Never shows a key."""
    try:
        fluid_dataset_manifests(datasets, context)
    except AnsibleFilterError as exc:
        return [str(exc)]
    return []


def nfs_volume_manifests(volumes, namespace, mount_options):
    """PV and PVC of every baseline NFS volume."""
    objects = []
    try:
        for index, item in enumerate(volumes or []):
            built = build_nfs_volume(item, index, namespace, mount_options)
            require_accepted(built, "datasets_nfs_volumes[%d] (%s)" % (index, item.get("name")))
            objects.extend(built)
    except InputError as exc:
        raise AnsibleFilterError(str(exc)) from exc
    return objects


class FilterModule(object):
    def filters(self):
        return {
            "fluid_dataset_manifests": fluid_dataset_manifests,
            "fluid_dataset_problems": fluid_dataset_problems,
            "nfs_volume_manifests": nfs_volume_manifests,
            "pool_runtimes": pool_runtimes,
        }
