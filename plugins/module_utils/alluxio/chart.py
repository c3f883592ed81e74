# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values for the standalone Alluxio Helm chart (seed 004) from the bundle's tuning profiles.

``build_values(params)`` returns ``{"values": ..., "warnings": [...]}`` or raises
``InputError`` whose message names the ``alluxio_*`` variable, the bad value and what is
allowed. The profile that shapes a Fluid AlluxioRuntime shapes the chart the same way: its
properties go to every component, its JVM options to each component, its FUSE options become
the chart's one ``fuse.mountOptions`` string and its FUSE environment (``MAX_IDLE_THREADS``)
goes to ``fuse.env``. The root under-store's keys (OSS or S3) never enter the values: the chart
mounts a Secret holding an ``alluxio-site.properties`` and ``alluxio.site.conf.dir`` points Alluxio
at it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.properties import check_properties
from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import URL, require, require_name, typed
from ansible_collections.fluidops.accel.plugins.module_utils.common.stores import KEY_PROPERTIES, STORES, store_of
from ansible_collections.fluidops.accel.plugins.module_utils.tuning import (
    LIBFUSE_VERSION,
    build_tier,
    check_client_cache,
    check_fuse_options,
    check_fuse_resources,
    fuse_heap,
    fuse_mount_options,
    merge_profile,
    set_jvm_options,
)

SITE_PROPERTIES = "alluxio-site.properties"
VOLUME_TYPES = ("hostPath", "emptyDir", "persistentVolumeClaim")


def _secret_dir(secret):
    return "/secrets/%s/" % secret


def site_properties(credentials, store="oss"):
    """The ``alluxio-site.properties`` text a credentials Secret holds, with the key names of
    ``store`` (a key of common/stores.py's STORES: oss or s3)."""
    return "".join("%s=%s\n" % (key, credentials[field])
                   for key, field in zip(STORES[store]["keys"], ("access_key_id", "access_key_secret")))


def oss_site_properties(credentials):
    """``site_properties`` of OSS keys."""
    return site_properties(credentials, "oss")


_KEYS_GO = "the root under-store's keys go in alluxio_oss_credentials or alluxio_s3_credentials, which the role stores in a Secret"


def build_values(params):
    """Chart values from ``params`` (the role's variables without their ``alluxio_`` prefix)."""
    warnings = []
    properties, jvm, fuse_env, fuse_args, (fuse_resources, resources_where) = merge_profile(
        {"profile": params["profile"], "properties": params.get("properties"), "jvm_options": params.get("jvm_options"),
         "fuse_env": params.get("fuse_env"), "fuse_resources": params.get("fuse_resources")},
        params["profiles"], "alluxio_")
    resources = check_fuse_resources(fuse_resources, resources_where, heap=fuse_heap(jvm))
    require(not set(properties) & set(KEY_PROPERTIES), "alluxio_properties (or the profile) holds %s: %s"
            % (", ".join(sorted(set(properties) & set(KEY_PROPERTIES))), _KEYS_GO))
    errors, unknown = check_properties(properties, "alluxio_properties")
    require(not errors, "; ".join(errors))
    warnings.extend(unknown)
    check_client_cache(properties, jvm, "alluxio_properties (or alluxio_profile %s)" % params["profile"])

    options = typed(params.get("fuse_mount_options"), list, "alluxio_fuse_mount_options") or fuse_mount_options(fuse_args)
    # The chart mounts FUSE for other users' pods: without allow_other training pods cannot read it.
    if "allow_other" not in options:
        options = ["allow_other"] + list(options)
    # Alluxio 2.9 loads libfuse 2 unless the properties say 3 (PropertyKey FUSE_JNIFUSE_LIBFUSE_VERSION).
    check_fuse_options(options, "alluxio_fuse_mount_options" if params.get("fuse_mount_options") else "alluxio_profile's fuse_args",
                       libfuse=str(properties.get(LIBFUSE_VERSION, "2")))

    tiers = typed(params.get("tiers"), list, "alluxio_tiers", default=[])
    require(tiers, "alluxio_tiers is empty: give at least one tier (medium, path, quota), e.g. MEM on the nodes' ramfs")
    levels = []
    for index, tier in enumerate(tiers):
        where = "alluxio_tiers[%d]" % index
        typed(tier, dict, where)
        checked = build_tier(tier, where)
        volume_type = tier.get("volume_type", "hostPath")
        require(volume_type in VOLUME_TYPES, "%s.volume_type=%s is not one of %s" % (where, volume_type, ", ".join(VOLUME_TYPES)))
        levels.append({"level": index, "alias": checked["mediumtype"], "mediumtype": checked["mediumtype"],
                       "path": checked["path"], "type": volume_type, "quota": checked["quota"],
                       "high": float(checked["high"]), "low": float(checked["low"])})

    root_ufs = str(params.get("root_ufs") or "")
    require(URL.match(root_ufs), "alluxio_root_ufs=%s is not a URL such as oss://bucket/dir/" % (root_ufs or "(unset)"))
    ufs_options = {str(k): str(v) for k, v in typed(params.get("root_ufs_options"), dict, "alluxio_root_ufs_options", default={}).items()}
    inline = sorted(set(ufs_options) & set(KEY_PROPERTIES))
    require(not inline, "alluxio_root_ufs_options holds %s: %s" % (", ".join(inline), _KEYS_GO))
    # The Secret of the root under-store's keys: alluxio_oss_secret or alluxio_s3_secret, by its scheme.
    store = store_of(root_ufs)
    secret = str(params.get("%s_secret" % store) or "") if store else ""
    if secret:
        require_name(secret, "alluxio_%s_secret" % store)
    require(not store or secret, "alluxio_root_ufs=%s is on %s but alluxio_%s_secret is empty: name the Secret that holds the keys"
            % (root_ufs, STORES[store]["label"] if store else "", store))

    merged = {key: str(value).lower() if isinstance(value, bool) else str(value) for key, value in properties.items()}
    merged["alluxio.master.mount.table.root.ufs"] = root_ufs
    merged.update(ufs_options)
    values = {
        "image": params["image"],
        "imageTag": str(params["image_tag"]),
        "properties": merged,
        "tieredstore": {"levels": levels},
        "journal": dict(typed(params.get("journal"), dict, "alluxio_journal", default={})),
        "shortCircuit": dict(typed(params.get("short_circuit"), dict, "alluxio_short_circuit", default={})),
        "fuse": {"enabled": True, "mountOptions": ",".join(options), "mountPoint": params["fuse_mount_point"],
                 # The 2.9 chart still reads mountPath for alluxio.fuse.mount.point: keep them equal.
                 "mountPath": params["fuse_mount_point"]},
    }
    if secret:
        # Mounted at /secrets/<name>/ in master, job master, worker and job worker.
        values["secrets"] = {"master": {secret: secret}, "worker": {secret: secret}}
        merged["alluxio.site.conf.dir"] = _secret_dir(secret)
    if fuse_env:
        values["fuse"]["env"] = {key: str(value) for key, value in sorted(fuse_env.items())}
    if resources:
        values["fuse"]["resources"] = resources
    set_jvm_options(values, jvm)
    if typed(params.get("node_selector"), dict, "alluxio_node_selector"):
        values["nodeSelector"] = {str(k): str(v) for k, v in params["node_selector"].items()}
    return {"values": values, "warnings": warnings, "store": store or "", "secret": secret}
