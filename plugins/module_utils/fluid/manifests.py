# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fluid Dataset and runtime manifests, ThinRuntime profiles, object stores' key Secrets and NFS
volumes from the dataset variables.

``build_dataset(item, index, context)`` turns one entry of ``datasets_list`` into the objects
Fluid needs (the Dataset and its AlluxioRuntime, JindoRuntime or ThinRuntime) or raises
``InputError`` whose message names the variable, the bad value and what is allowed. Secret values
never enter the manifests of the Dataset or runtime: those reference the Secret by name.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.properties import check_properties
from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import URL, require, require_name, typed
from ansible_collections.fluidops.accel.plugins.module_utils.common.images import mirrored, split_image
from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import is_k8s_quantity, parse_ok
from ansible_collections.fluidops.accel.plugins.module_utils.common.stores import KEY_PROPERTIES, STORES, store_of
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.metrics import dataset_metrics, fuse_web_properties, resolve_mode
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.objects import tolerations_of
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

RUNTIMES = {"alluxio": "AlluxioRuntime", "jindo": "JindoRuntime", "thin": "ThinRuntime"}
# Runtimes that keep no cache: a ThinRuntime runs only the FUSE program its profile names.
CACHELESS = ("thin",)
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
PLACEMENTS = ("Exclusive", "Shared")
ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadOnlyOnce", "ReadWriteOncePod")
FLUID_API = "data.fluid.io/v1alpha1"

# What Fluid 1.0.8 gives a runtime's FUSE where the runtime says nothing: its JVM's default options
# (pkg/ddc/alluxio/transform.go, -Xmx16G -Xms16G ...) and its default properties
# (transform_optimization.go: the client metadata cache on, 6,000,000 entries at most).
FLUID_FUSE_DEFAULTS = {"heap": "-Xmx16G", "properties": {"alluxio.user.metadata.cache.enabled": "true",
                                                         "alluxio.user.metadata.cache.max.size": "6000000"}}


def mount_name(mount):
    """The mount's name: given, or made from its mount point (Fluid shows the mount under /<name>)."""
    point = str(mount.get("mount_point", ""))
    return str(mount.get("name") or re.sub(r"[^a-z0-9-]", "-", point.split("://", 1)[-1].strip("/").lower())[:63])


def _mount(mount, where, warnings, kind):
    point = str(mount.get("mount_point", ""))
    require(URL.match(point), "%s.mount_point=%s is not a URL such as oss://bucket/dir/ or pvc://claim" % (where, point or "(unset)"))
    options = dict(typed(mount.get("options"), dict, where + ".options", default={}))
    result = {"mountPoint": point, "name": mount_name(mount)}
    name = store_of(point)
    for other in STORES.values():
        require(other["field"] not in mount or other is STORES.get(name),
                "%s sets %s, which names the Secret of an %s mount point (%s://), but mount_point=%s" % (
                    where, other["field"], other["label"], other["schemes"][0], point))
    if name:
        store = STORES[name]
        label, field = store["label"], store["field"]
        inline = [key for key in store["keys"] + store["aliases"] if key in options]
        secret = mount.get(field)
        require(not (inline and secret),
                "%s sets both %s and inline %s: %s keys come both from a Secret or both inline" % (where, field, ", ".join(inline), label))
        require(len(inline) in (0, 2), "%s.options sets only %s: set both %s, or neither and %s" % (
            where, inline[0] if inline else "", " and ".join(store["keys"]), field))
        require(not (name == "s3" and kind == "jindo"), "%s: an S3 mount point (%s) needs an AlluxioRuntime: Fluid's "
                "JindoRuntime takes the keys of OSS" % (where, point))
        if inline:
            require(mount.get("allow_inline_credentials") is True,
                    "%s.options holds %s keys inline: put them in a Secret (%s), or set "
                    "allow_inline_credentials: true to accept keys in the Dataset" % (where, label, field))
            warnings.append("%s: %s keys are inline in the Dataset (allow_inline_credentials); anyone who can read "
                            "Datasets can read them" % (where, label))
        if secret:
            result["encryptOptions"] = [{"name": key, "valueFrom": {"secretKeyRef": {"name": secret, "key": key}}}
                                        for key in store["keys"]]
    if options:
        result["options"] = {key: str(value) for key, value in options.items()}
    for key, field in (("path", "path"), ("read_only", "readOnly"), ("shared", "shared")):
        if key in mount:
            result[field] = mount[key]
    return result


def build_dataset(item, index, context):
    """Return ``{"manifests": [...], "warnings": [...]}`` for ``datasets_list[index]``.

    ``context`` holds ``profiles``, ``gpu_node_count``, ``accelerator_key``, ``accelerator``,
    ``namespace`` (the default namespace), ``tolerations`` (the GPU nodes' taints, which
    Fluid gives the runtime's master, worker and fuse pods through the Dataset) and
    ``thin_profiles`` (datasets_thin_profiles, which a ThinRuntime's ``thin_profile`` names)
    and ``metrics`` (fluidops_metrics, auto resolved or not: unresolved, it is taken as annotations).
    """
    where = "datasets_list[%d]" % index
    warnings = []
    typed(item, dict, where)
    name = str(item.get("name", ""))
    require_name(name, where + ".name")
    where = "datasets_list[%d] (%s)" % (index, name)
    namespace = item.get("namespace", context["namespace"])
    mounts = typed(item.get("mounts"), list, where + ".mounts", default=[])
    require(mounts, "%s.mounts is empty: list at least one mount_point" % where)
    for i, mount in enumerate(mounts):
        typed(mount, dict, "%s.mounts[%d]" % (where, i))
    runtime = item.get("runtime")
    kind = runtime.get("type", "alluxio") if isinstance(runtime, dict) else "alluxio"
    require(kind not in CACHELESS or item.get("warmup") is None,
            "%s.warmup is set, but its runtime (type %s) keeps no cache to warm: drop warmup" % (where, kind))
    spec = {"mounts": [_mount(m, "%s.mounts[%d]" % (where, i), warnings, kind) for i, m in enumerate(mounts)]}

    affinity = typed(item.get("node_affinity", {context["accelerator_key"]: [context["accelerator"]]}), dict, where + ".node_affinity")
    if affinity:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": key, "operator": "In", "values": [str(v) for v in (values if isinstance(values, list) else [values])]}
            for key, values in sorted(affinity.items())]}]}}
    tolerations = item.get("tolerations", context.get("tolerations") or [])
    if tolerations:
        spec["tolerations"] = tolerations_of(tolerations, where + ".tolerations")
    if "placement" in item:
        require(item["placement"] in PLACEMENTS, "%s.placement=%s is not one of %s" % (where, item["placement"], ", ".join(PLACEMENTS)))
        spec["placement"] = item["placement"]
    if "access_modes" in item:
        typed(item["access_modes"], list, where + ".access_modes")
        bad = [mode for mode in item["access_modes"] if mode not in ACCESS_MODES]
        require(not bad, "%s.access_modes has %s: allowed are %s" % (where, ", ".join(bad), ", ".join(ACCESS_MODES)))
        spec["accessModes"] = list(item["access_modes"])

    meta = {"name": name, "namespace": namespace}
    dataset = {"apiVersion": FLUID_API, "kind": "Dataset", "metadata": dict(meta), "spec": spec}
    runtime = _runtime(typed(item.get("runtime"), dict, where + ".runtime", default={}), "%s.runtime" % where, meta, context, warnings)
    metrics = dataset_metrics(runtime, resolve_mode(context.get("metrics", "off"), None)) if runtime["kind"] == RUNTIMES["alluxio"] else []
    return {"manifests": [dataset, runtime] + metrics, "warnings": warnings}


def _runtime(runtime, where, meta, context, warnings):
    kind = runtime.get("type", "alluxio")
    require(kind in RUNTIMES, "%s.type=%s is not one of %s" % (where, kind, ", ".join(sorted(RUNTIMES))))
    if kind in CACHELESS:
        return _thin_runtime(runtime, where, meta, context)
    replicas = runtime.get("replicas", context["gpu_node_count"])
    require(isinstance(replicas, int) and 1 <= replicas <= context["gpu_node_count"],
            "%s.replicas=%s must be between 1 and the number of GPU nodes (%d): cache workers run on GPU nodes"
            % (where, replicas, context["gpu_node_count"]))
    tiers = typed(runtime.get("tiers"), list, where + ".tiers", default=[])
    for i, tier in enumerate(tiers):
        typed(tier, dict, "%s.tiers[%d]" % (where, i))
    require(tiers, "%s.tiers is empty: give at least one tier (medium, path, quota)" % where)
    # Fluid's controller writes each level back as its Go struct (api/v1alpha1 Level): the default
    # volumeType hostPath and an empty volumeSource. A level without them would be put back on
    # every run (a CRD's list is replaced whole), so the manifest says them too.
    levels = [dict({"volumeType": "hostPath", "volumeSource": {}}, **build_tier(t, "%s.tiers[%d]" % (where, i)))
              for i, t in enumerate(tiers)]
    properties, jvm, fuse_env, fuse_args, (fuse_resources, resources_where) = merge_profile(runtime, context["profiles"], where + ".")
    held = sorted(set(properties) & set(KEY_PROPERTIES))
    require(not held, "%s.properties (or its profile) holds %s: an object store's keys go in a Secret named by the mount's %s"
            % (where, ", ".join(held), " or ".join(store["field"] for store in STORES.values())))
    spec = {"replicas": replicas}
    if kind == "alluxio":
        errors, unknown = check_properties(properties, "%s.properties" % where)
        require(not errors, "; ".join(errors))
        warnings.extend(unknown)
        check_client_cache(properties, jvm, "%s.properties (or its profile)" % where, defaults=FLUID_FUSE_DEFAULTS)
        if context.get("metrics", "off") != "off":
            properties = dict(properties, **fuse_web_properties(properties, meta["namespace"], meta["name"]))
        spec["tieredstore"] = {"levels": levels}
        if "data_replicas" in runtime:
            spec["data"] = {"replicas": runtime["data_replicas"]}
        if properties:
            spec["properties"] = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in properties.items()}
        set_jvm_options(spec, jvm)
    else:
        require(len(levels) == 1, "%s.tiers has %d levels: JindoRuntime takes one" % (where, len(levels)))
        spec["tieredstore"] = {"levels": levels}
        if properties:
            spec["properties"] = {k: str(v) for k, v in properties.items()}
        if runtime.get("secret"):
            spec["secret"] = runtime["secret"]
    # Fluid 1.0.8 loads libfuse 3 unless the properties say 2 (transform_optimization.go); Jindo's
    # FUSE is its own.
    check_fuse_options(fuse_mount_options(fuse_args), where + (".fuse_args" if "fuse_args" in runtime else " (profile's fuse_args)"),
                       libfuse=str(properties.get(LIBFUSE_VERSION, "3")) if kind == "alluxio" else None)
    if fuse_args:
        spec.setdefault("fuse", {})["args"] = list(fuse_args)
    if fuse_env:
        # Both runtimes take fuse.env as a map (MAX_IDLE_THREADS goes here, not in the mount options).
        spec.setdefault("fuse", {})["env"] = {k: str(v) for k, v in sorted(fuse_env.items())}
    heap = fuse_heap(jvm, FLUID_FUSE_DEFAULTS["heap"]) if kind == "alluxio" else None
    resources = check_fuse_resources(fuse_resources, resources_where, heap=heap, memory_limit_needed=kind == "alluxio")
    if resources:
        spec.setdefault("fuse", {})["resources"] = resources
    return {"apiVersion": FLUID_API, "kind": RUNTIMES[kind], "metadata": dict(meta), "spec": spec}


# What a ThinRuntime takes from datasets_list: its profile names the FUSE program; there is no
# cache to size, tune or warm.
_THIN_KEYS = ("type", "thin_profile", "fuse_options")


def _thin_runtime(runtime, where, meta, context):
    names = [str(profile.get("name")) for profile in context.get("thin_profiles") or [] if isinstance(profile, dict)]
    profile = runtime.get("thin_profile")
    require(profile in names, "%s.thin_profile=%s is not a profile of datasets_thin_profiles (%s)"
            % (where, profile if profile is not None else "(unset)", ", ".join(names) or "none is defined"))
    other = sorted(set(runtime) - set(_THIN_KEYS))
    require(not other, "%s sets %s, which a ThinRuntime does not take: it keeps no cache and runs the FUSE program of "
            "its profile (allowed: %s)" % (where, ", ".join(other), ", ".join(_THIN_KEYS)))
    spec = {"profileName": profile}
    options = typed(runtime.get("fuse_options"), dict, where + ".fuse_options", default={})
    if options:
        spec["fuse"] = {"options": {str(key): str(value) for key, value in sorted(options.items())}}
    return {"apiVersion": FLUID_API, "kind": RUNTIMES["thin"], "metadata": dict(meta), "spec": spec}


def build_thin_profile(item, index, registry=""):
    """A ThinRuntimeProfile (cluster-scoped) from ``datasets_thin_profiles[index]``: ``{name,
    file_system_type, image, pull_policy, command, args, env}``. Fluid's CSI plugin finds the mount
    by ``file_system_type`` in the node's mount table (fuse.s3fs for s3fs); ``image`` is a whole
    reference with its tag, sent to ``registry`` when one is set."""
    where = "datasets_thin_profiles[%d]" % index
    typed(item, dict, where)
    name = str(item.get("name", ""))
    require_name(name, where + ".name")
    where = "%s (%s)" % (where, name)
    fs_type = item.get("file_system_type")
    require(isinstance(fs_type, str) and fs_type.strip(), "%s.file_system_type=%s must name the mount's type as the "
            "node's mount table shows it, such as fuse.s3fs" % (where, fs_type if fs_type is not None else "(unset)"))
    repository, tag = split_image(mirrored(str(item.get("image") or ""), registry))
    require(item.get("image") and tag, "%s.image=%s must be an image reference with its tag, such as "
            "registry.example.com/s3fs-fuse:1.90" % (where, item.get("image") or "(unset)"))
    policy = item.get("pull_policy", "IfNotPresent")
    require(policy in PULL_POLICIES, "%s.pull_policy=%s is not one of %s" % (where, policy, ", ".join(PULL_POLICIES)))
    fuse = {"image": repository, "imageTag": tag, "imagePullPolicy": policy}
    for key in ("command", "args"):
        if item.get(key) is not None:
            fuse[key] = [str(part) for part in typed(item[key], list, "%s.%s" % (where, key))]
    env = typed(item.get("env"), dict, where + ".env", default={})
    if env:
        fuse["env"] = [{"name": str(key), "value": str(value)} for key, value in sorted(env.items())]
    return {"apiVersion": FLUID_API, "kind": "ThinRuntimeProfile", "metadata": {"name": name},
            "spec": {"fileSystemType": fs_type.strip(), "fuse": fuse}}


def node_cache_dirs(tiers, namespace, name):
    """The node directories where a runtime's workers keep their blocks, from the runtime's
    ``tiers`` as ``datasets_list`` gives them: each path of each hostPath level, as Fluid hands it
    to the workers, ``<path>/<namespace>/<name>`` (Alluxio: pkg/ddc/alluxio/transform.go
    transformTieredStore; Jindo adds a directory under it: pkg/ddc/jindofsx/transform.go). An
    emptyDir level ends with its pod. Paths that are not absolute are left out: the checks name them."""
    dirs = []
    for tier in tiers if isinstance(tiers, list) else []:
        if not isinstance(tier, dict) or tier.get("volume_type", "hostPath") != "hostPath":
            continue
        for path in str(tier.get("path") or "").split(","):
            path = path.strip().rstrip("/")
            if path.startswith("/"):
                dirs.append("%s/%s/%s" % (path, namespace, name))
    return dirs


def build_nfs_volume(item, index, namespace, mount_options):
    """Seed 003's baseline: a PersistentVolume and a PersistentVolumeClaim of the same name."""
    where = "datasets_nfs_volumes[%d]" % index
    typed(item, dict, where)
    name = str(item.get("name", ""))
    require_name(name, where + ".name")
    where = "%s (%s)" % (where, name)
    require(item.get("server"), "%s.server is not set: give the NFS server's host name or address" % where)
    path = str(item.get("path", ""))
    require(path.startswith("/"), "%s.path=%s is not an absolute path on the NFS server" % (where, path or "(unset)"))
    capacity = item.get("capacity", "150Gi")
    require(is_k8s_quantity(capacity) and parse_ok(capacity),
            "%s.capacity=%s is not a quantity such as 150Gi (Kubernetes' grammar: no space, no GB)" % (where, capacity))
    modes = list(typed(item.get("access_modes"), list, where + ".access_modes", default=["ReadOnlyMany"]))
    bad = [mode for mode in modes if mode not in ACCESS_MODES]
    require(modes and not bad, "%s.access_modes has %s: allowed are %s" % (where, ", ".join(bad) or "nothing", ", ".join(ACCESS_MODES)))
    storage_class = str(item.get("storage_class", "nfs"))
    volume = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": {
        "capacity": {"storage": str(capacity)}, "volumeMode": "Filesystem", "accessModes": modes,
        "persistentVolumeReclaimPolicy": "Retain", "storageClassName": storage_class,
        "mountOptions": [str(option) for option in typed(item.get("mount_options", mount_options), list,
                                                         where + ".mount_options" if "mount_options" in item else "datasets_nfs_mount_options")],
        "nfs": {"path": path, "server": str(item["server"])}}}
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": name, "namespace": item.get("namespace", namespace)},
             "spec": {"accessModes": modes, "resources": {"requests": {"storage": str(capacity)}}, "storageClassName": storage_class,
                      # Bind to this volume only, not to any other of the storage class.
                      "volumeName": name}}
    return [volume, claim]


def build_store_secret(name, credentials, namespace, store="oss"):
    """The Secret whose keys an object store's mounts reference in their encryptOptions (and, for
    OSS, a JindoRuntime's secret): ``credentials`` is an entry of the store's variable
    (datasets_oss_secrets, datasets_s3_secrets)."""
    require(store in STORES, "store=%s is not one of %s" % (store, ", ".join(sorted(STORES))))
    where = "%s[%s]" % (STORES[store]["variable"], name)
    require_name(str(name), where + ": the Secret name")
    missing = [key for key in ("access_key_id", "access_key_secret") if not credentials.get(key)]
    require(not missing, "%s lacks %s" % (where, " and ".join(missing)))
    return {"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": str(name), "namespace": credentials.get("namespace", namespace)},
            "stringData": dict(zip(STORES[store]["keys"], (str(credentials["access_key_id"]), str(credentials["access_key_secret"]))))}


def check_placement(manifests, gpu_node_count):
    """Exclusive datasets (Fluid's default placement) each take nodes of their own: their cache
    workers, plus those of the widest Shared dataset, must fit on the GPU nodes."""
    replicas = {m["metadata"]["name"]: m["spec"]["replicas"] for m in manifests
                if m["kind"] in RUNTIMES.values() and "replicas" in m["spec"]}
    # A ThinRuntime runs no cache workers: it takes no node of its own.
    datasets = [m for m in manifests if m["kind"] == "Dataset" and m["metadata"]["name"] in replicas]
    exclusive = [d["metadata"]["name"] for d in datasets if d["spec"].get("placement", "Exclusive") == "Exclusive"]
    shared = [replicas[d["metadata"]["name"]] for d in datasets if d["metadata"]["name"] not in exclusive]
    wanted = sum(replicas[name] for name in exclusive) + max(shared or [0])
    require(len(datasets) < 2 or wanted <= gpu_node_count,
            "datasets_list: %s use Exclusive placement (Fluid's default: one dataset's cache per node) and need %d of the "
            "%d GPU nodes: set placement: Shared, or fewer runtime replicas" % (", ".join(exclusive), wanted, gpu_node_count))
