# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: the Kubernetes objects of the datasets role (Fluid objects, ThinRuntime profiles, object
stores' key Secrets, NFS volumes)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError, typed
from ansible_collections.fluidops.accel.plugins.module_utils.common.stores import STORES
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import (
    build_dataset,
    build_nfs_volume,
    build_store_secret,
    build_thin_profile,
    check_placement,
)
from ansible_collections.fluidops.accel.plugins.plugin_utils.schema_check import problems as schema_problems


def fluid_dataset_manifests(datasets, context):
    """``{"manifests": [...], "warnings": [...]}`` for every ThinRuntime profile (first: the
    runtimes name them) and every dataset, or an error naming the bad variable. ``context``: as
    build_dataset takes it, with ``image_registry`` (fluidops_image_registry) for the profiles' images."""
    manifests, warnings = [], []
    try:
        for index, item in enumerate(typed(context.get("thin_profiles"), list, "datasets_thin_profiles", default=[])):
            profile = build_thin_profile(item, index, context.get("image_registry") or "")
            name = profile["metadata"]["name"]
            if any(other["metadata"]["name"] == name for other in manifests):
                raise InputError("datasets_thin_profiles[%d] (%s): the name is given twice" % (index, name))
            _schema_check([profile], "datasets_thin_profiles[%d] (%s)" % (index, name))
            manifests.append(profile)
        for index, item in enumerate(datasets or []):
            built = build_dataset(item, index, context)
            _schema_check(built["manifests"], "datasets_list[%d] (%s)" % (index, item.get("name")))
            manifests.extend(built["manifests"])
            warnings.extend(built["warnings"])
        check_placement(manifests, context["gpu_node_count"])
    except InputError as exc:
        raise AnsibleFilterError(str(exc)) from exc
    return {"manifests": manifests, "warnings": warnings}


def _schema_check(objects, where):
    """The objects built from one variable, as the API server and Fluid would take them
    (plugin_utils/schema_check.py): what they refuse is refused here, naming the variable."""
    found = schema_problems(objects)
    if found:
        raise InputError("%s would be refused: %s" % (where, "; ".join(found)))


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
            _schema_check(built, "datasets_nfs_volumes[%d] (%s)" % (index, item.get("name")))
            objects.extend(built)
    except InputError as exc:
        raise AnsibleFilterError(str(exc)) from exc
    return objects


def store_secret_manifests(secrets, namespace, store="oss"):
    """The Secrets of ``datasets_oss_secrets`` (or of ``datasets_s3_secrets``, store s3); callers
    keep the result out of logs."""
    try:
        return [build_store_secret(name, credentials or {}, namespace, store) for name, credentials in sorted((secrets or {}).items())]
    except InputError as exc:
        raise AnsibleFilterError(str(exc)) from exc


def store_secret_problems(secrets, namespace="default", store="oss"):
    """What is wrong with ``datasets_oss_secrets`` (or ``datasets_s3_secrets``, store s3), naming
    Secrets but never showing a value."""
    if store not in STORES:
        raise AnsibleFilterError("store=%s is not one of %s" % (store, ", ".join(sorted(STORES))))
    problems = []
    for name, credentials in sorted((secrets or {}).items()):
        try:
            _schema_check([build_store_secret(name, credentials or {}, namespace, store)], "%s[%s]" % (STORES[store]["variable"], name))
        except InputError as exc:
            problems.append(str(exc))
    return problems


def placeholder_credentials(secrets, prefix=""):
    """Names (with ``prefix``) of the credentials in ``{name: {access_key_id, access_key_secret}}``
    that still hold a placeholder (CHANGE-ME, xxx, <...>) instead of a key. Never returns a value."""
    def placeholder(value):
        text = str(value or "").strip()
        return not text or text.upper() in ("CHANGE-ME", "XXX") or (text.startswith("<") and text.endswith(">"))
    return sorted(prefix + name for name, credentials in (secrets or {}).items()
                  if any(placeholder((credentials or {}).get(key)) for key in ("access_key_id", "access_key_secret")))


class FilterModule(object):
    def filters(self):
        return {
            "fluid_dataset_manifests": fluid_dataset_manifests,
            "fluid_dataset_problems": fluid_dataset_problems,
            "nfs_volume_manifests": nfs_volume_manifests,
            "store_secret_manifests": store_secret_manifests,
            "store_secret_problems": store_secret_problems,
            "placeholder_credentials": placeholder_credentials,
        }
