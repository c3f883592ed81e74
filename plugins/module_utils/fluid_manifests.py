# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fluid Dataset and runtime manifests, ThinRuntime profiles, object stores' key Secrets and NFS
volumes from the dataset variables.

``build_dataset(item, index, context)`` turns one entry of ``datasets_list`` into the objects
Fluid needs (the Dataset and its AlluxioRuntime, JindoRuntime or ThinRuntime) or raises
``DatasetError`` whose message names the variable, the bad value and what is allowed. Secret values
never enter the manifests of the Dataset or runtime: those reference the Secret by name.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import re

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio_properties import check_properties
from ansible_collections.fluidops.accel.plugins.module_utils.images import mirrored, split_image
from ansible_collections.fluidops.accel.plugins.module_utils.quantity import format_bytes, is_k8s_quantity, jvm_size, parse_bytes

MEDIA = ("MEM", "SSD", "HDD")
RUNTIMES = {"alluxio": "AlluxioRuntime", "jindo": "JindoRuntime", "thin": "ThinRuntime"}
# Runtimes that keep no cache: a ThinRuntime runs only the FUSE program its profile names.
CACHELESS = ("thin",)
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
PLACEMENTS = ("Exclusive", "Shared")
# The JVMs a tuning profile's jvm_options name, and the chart value each sets: `all` is the charts'
# top-level jvmOptions (ALLUXIO_JAVA_OPTS), which every Alluxio process takes, job master and job
# worker included.
JVM_COMPONENTS = ("master", "worker", "fuse", "all")
ACCESS_MODES = ("ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadOnlyOnce", "ReadWriteOncePod")
# The object stores whose keys a mount takes from a Secret: the mount points' schemes, the mount's
# field that names the Secret, the variable that defines such Secrets, and the Alluxio properties
# the two keys fill (also the Secret's keys), then other names Alluxio reads for them (its
# PropertyKey aliases), which count as keys too.
STORES = {
    "oss": {"label": "OSS", "schemes": ("oss",), "field": "oss_secret", "variable": "datasets_oss_secrets",
            "keys": ("fs.oss.accessKeyId", "fs.oss.accessKeySecret"), "aliases": ()},
    "s3": {"label": "S3", "schemes": ("s3", "s3a"), "field": "s3_secret", "variable": "datasets_s3_secrets",
           "keys": ("aws.accessKeyId", "aws.secretKey"), "aliases": ("s3a.accessKeyId", "s3a.secretKey")},
}
OSS_KEYS = STORES["oss"]["keys"]
KEY_PROPERTIES = tuple(key for store in STORES.values() for key in store["keys"] + store["aliases"])
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_MOUNT_POINT = re.compile(r"^[a-z][a-z0-9+.-]*://.+")


class DatasetError(ValueError):
    """Invalid dataset variables; the message says which, what and what is allowed."""


def _require(condition, message):
    if not condition:
        raise DatasetError(message)


_KINDS = {list: "a list", dict: "a mapping", str: "a string", int: "a whole number"}


def typed(value, kind, where, default=None):
    """``value`` when it is of ``kind`` (list, dict, str), ``default`` when it is None. Anything else
    is refused by name: a string given for a list would otherwise be read as its characters."""
    if value is None:
        return default
    _require(isinstance(value, kind) and not (kind is int and isinstance(value, bool)),
             "%s must be %s, got %s" % (where, _KINDS[kind], next((name for k, name in _KINDS.items() if isinstance(value, k)),
                                                                  type(value).__name__)
                                        + ("" if isinstance(value, (dict, list)) else " (%s)" % str(value)[:60])))
    return value


# libfuse options that take a number (fuse(8), mount.fuse3(8)): seconds or bytes.
_FUSE_NUMBERS = ("attr_timeout", "entry_timeout", "negative_timeout", "max_read", "max_readahead", "max_write",
                 "max_background", "congestion_threshold")
_FUSE_OPTION = re.compile(r"^[a-z][a-z0-9_]*(=[^,=\s]+)?$")
# Options libfuse 3.0 removed (its ChangeLog: a non-empty mount point and big writes are always
# allowed), which it refuses as unknown: the FUSE process exits and the mount never comes.
_LIBFUSE2_ONLY = ("nonempty", "big_writes")
LIBFUSE_VERSION = "alluxio.fuse.jnifuse.libfuse.version"


def fuse_mount_options(fuse_args):
    """The mount options in FUSE arguments: Alluxio's ``--fuse-opts=a,b=1`` and Jindo's ``-oa=1``."""
    options = []
    for arg in fuse_args or []:
        text = str(arg)
        if text.startswith("--fuse-opts="):
            options.extend(opt for opt in text.split("=", 1)[1].split(",") if opt)
        elif text.startswith("-o") and len(text) > 2:
            options.extend(opt for opt in text[2:].split(",") if opt)
    return options


def check_fuse_options(options, where, libfuse=None):
    """The rules for FUSE mount options, the same for a Fluid runtime's fuse args and the standalone
    chart's mount options. ``libfuse``: the libfuse version Alluxio's JNI-FUSE loads (its
    property ``LIBFUSE_VERSION`` or the default where it runs), whose options it must take."""
    if str(libfuse) == "3":
        removed = [option for option in options if option.partition("=")[0] in _LIBFUSE2_ONLY]
        _require(not removed, "%s has %s, which libfuse 3 refuses (%s=3, set or by default): drop it, or set %s: \"2\" "
                 "in the properties" % (where, ", ".join(removed), LIBFUSE_VERSION, LIBFUSE_VERSION))
    for option in options:
        _require(_FUSE_OPTION.match(option), "%s has %s, which is not a FUSE mount option such as kernel_cache or attr_timeout=7200"
                 % (where, option))
        name, _separator, value = option.partition("=")
        _require(name != "direct_io", "%s has direct_io: seed 004 advises against it (no page cache, unstable under load); "
                 "use kernel_cache" % where)
        _require(name not in _FUSE_NUMBERS or re.match(r"^[0-9]+(\.[0-9]+)?$", value),
                 "%s has %s: %s takes a number of %s, such as %s=%s" % (
                     where, option, name, "seconds" if name.endswith("timeout") else "bytes or requests", name,
                     "7200" if name.endswith("timeout") else "131072"))


def parse_ok(quantity):
    """A byte count above zero (Kubernetes also takes 100m or -1, which are no size)."""
    try:
        return parse_bytes(quantity) > 0
    except ValueError:
        return False


def _fraction(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def build_tier(level, where):
    """A Fluid tieredstore level from ``{medium, path, quota, high, low, volume_type}``, checked."""
    medium = str(level.get("medium", level.get("mediumtype", "")))
    _require(medium in MEDIA, "%s.medium=%s is not one of %s" % (where, medium or "(unset)", ", ".join(MEDIA)))
    path = str(level.get("path", ""))
    _require(path and all(part.startswith("/") for part in path.split(",")),
             "%s.path=%s is not an absolute path (or a comma list of them)" % (where, path or "(unset)"))
    quota = level.get("quota")
    _require(quota is not None and is_k8s_quantity(quota) and parse_ok(quota),
             "%s.quota=%s is not a quantity such as 100Gi or 180G (Kubernetes' grammar: no space, no GB)" % (where, quota))
    high, low = _fraction(level.get("high", "0.99")), _fraction(level.get("low", "0.8"))
    _require(high is not None and low is not None and 0 < low < high <= 1,
             "%s watermarks high=%s low=%s must satisfy 0 < low < high <= 1" % (where, level.get("high", "0.99"), level.get("low", "0.8")))
    tier = {"mediumtype": medium, "path": path, "quota": str(quota), "high": str(level.get("high", "0.99")),
            "low": str(level.get("low", "0.8"))}
    if "volume_type" in level:
        tier["volumeType"] = level["volume_type"]
    return tier


def mount_name(mount):
    """The mount's name: given, or made from its mount point (Fluid shows the mount under /<name>)."""
    point = str(mount.get("mount_point", ""))
    return str(mount.get("name") or re.sub(r"[^a-z0-9-]", "-", point.split("://", 1)[-1].strip("/").lower())[:63])


def store_of(mount_point):
    """The store (a key of STORES) a mount point's scheme names, or None."""
    scheme = str(mount_point).split("://", 1)[0]
    return next((name for name, store in STORES.items() if scheme in store["schemes"]), None)


def _mount(mount, where, warnings, kind):
    point = str(mount.get("mount_point", ""))
    _require(_MOUNT_POINT.match(point), "%s.mount_point=%s is not a URL such as oss://bucket/dir/ or pvc://claim" % (where, point or "(unset)"))
    options = dict(typed(mount.get("options"), dict, where + ".options", default={}))
    result = {"mountPoint": point, "name": mount_name(mount)}
    name = store_of(point)
    for other in STORES.values():
        _require(other["field"] not in mount or other is STORES.get(name),
                 "%s sets %s, which names the Secret of an %s mount point (%s://), but mount_point=%s" % (
                     where, other["field"], other["label"], other["schemes"][0], point))
    if name:
        store = STORES[name]
        label, field = store["label"], store["field"]
        inline = [key for key in store["keys"] + store["aliases"] if key in options]
        secret = mount.get(field)
        _require(not (inline and secret),
                 "%s sets both %s and inline %s: %s keys come both from a Secret or both inline" % (where, field, ", ".join(inline), label))
        _require(len(inline) in (0, 2), "%s.options sets only %s: set both %s, or neither and %s" % (
            where, inline[0] if inline else "", " and ".join(store["keys"]), field))
        _require(not (name == "s3" and kind == "jindo"), "%s: an S3 mount point (%s) needs an AlluxioRuntime: Fluid's "
                 "JindoRuntime takes the keys of OSS" % (where, point))
        if inline:
            _require(mount.get("allow_inline_credentials") is True,
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


def merge_profile(runtime, profiles, prefix):
    """(properties, jvm_options, fuse_env, fuse_args, fuse_resources) of the profile
    ``runtime["profile"]`` with the runtime's single-key overrides on top (its fuse_args and
    fuse_resources replace the profile's whole). ``prefix`` + key names each override's variable
    (``datasets_list[0] (imagenet).runtime.`` or ``alluxio_``)."""
    name = runtime.get("profile", "fluid-defaults")
    _require(name in profiles, "%sprofile=%s is not a tuning profile: use one of %s" % (prefix, name, ", ".join(sorted(profiles))))
    profile = copy.deepcopy(profiles[name])
    merged = {}
    for key in ("properties", "jvm_options", "fuse_env"):
        merged[key] = dict(typed(profile.get(key), dict, "tuning profile %s: %s" % (name, key), default={}))
        merged[key].update(typed(runtime.get(key), dict, prefix + key, default={}))
    for component, options in sorted(merged["jvm_options"].items()):
        _require(component in JVM_COMPONENTS, "%sjvm_options has %s, which is not one of %s"
                 % (prefix, component, ", ".join(JVM_COMPONENTS)))
        typed(options, list, "%sjvm_options.%s" % (prefix, component))
    if runtime.get("fuse_args") is not None:
        fuse_args = typed(runtime["fuse_args"], list, prefix + "fuse_args")
    else:
        fuse_args = typed(profile.get("fuse_args"), list, "tuning profile %s: fuse_args" % name)
    if runtime.get("fuse_resources") is not None:
        fuse_resources = (runtime["fuse_resources"], prefix + "fuse_resources")
    else:
        fuse_resources = (profile.get("fuse_resources") or {}, "tuning profile %s: fuse_resources" % name)
    return merged["properties"], merged["jvm_options"], merged["fuse_env"], fuse_args, fuse_resources


_RESOURCE_NAMES = ("cpu", "memory")


def _cores(quantity):
    """A CPU quantity in cores: 8, 1.5 or 500m."""
    text = str(quantity)
    return float(text[:-1]) / 1000 if text.endswith("m") else float(text)


def check_fuse_resources(resources, where, heap=None, memory_limit_needed=False):
    """The FUSE pods' ``{requests: {cpu, memory}, limits: {cpu, memory}}`` as Kubernetes takes them,
    the values as strings; a request above its limit, or a memory limit under the FUSE JVM's
    ``heap`` (bytes), is refused. ``memory_limit_needed``: any resource needs a memory limit (Fluid
    1.0.8 drops every FUSE resource of an AlluxioRuntime without one: transform_resources.go)."""
    typed(resources, dict, where)
    checked = {}
    for kind, quantities in resources.items():
        _require(kind in ("requests", "limits"), "%s has %s: allowed are requests and limits" % (where, kind))
        for name, value in typed(quantities, dict, "%s.%s" % (where, kind)).items():
            _require(name in _RESOURCE_NAMES, "%s.%s has %s: allowed are %s" % (where, kind, name, ", ".join(_RESOURCE_NAMES)))
            text = str(value)
            good = is_k8s_quantity(text) and (parse_ok(text) if name == "memory" else re.match(r"^[0-9]+(\.[0-9]+)?m?$", text) and _cores(text) > 0)
            _require(good, "%s.%s.%s=%s is not a quantity such as %s" % (where, kind, name, text, "8 or 500m" if name == "cpu" else "24Gi"))
            checked.setdefault(kind, {})[name] = text
    requests, limits = checked.get("requests", {}), checked.get("limits", {})
    for name in set(requests) & set(limits):
        size = _cores if name == "cpu" else parse_bytes
        _require(size(requests[name]) <= size(limits[name]), "%s.requests.%s=%s is above its limit %s" % (where, name, requests[name], limits[name]))
    _require(not checked or not memory_limit_needed or "memory" in limits,
             "%s sets no limits.memory: Fluid 1.0.8 then drops every FUSE resource of the runtime (its cpu too); give the "
             "memory limit, the FUSE JVM's heap and direct memory" % where)
    _require(not heap or "memory" not in limits or parse_bytes(limits["memory"]) >= heap,
             "%s.limits.memory=%s is under the FUSE JVM's heap (-Xmx, %s): the pod would be killed as its heap fills; give the "
             "heap and the direct memory the reads use" % (where, limits.get("memory"), format_bytes(heap or 0)))
    return checked


# What Fluid 1.0.8 gives a runtime's FUSE where the runtime says nothing: its JVM's default options
# (pkg/ddc/alluxio/transform.go, -Xmx16G -Xms16G ...) and its default properties
# (transform_optimization.go: the client metadata cache on, 6,000,000 entries at most).
FLUID_FUSE_DEFAULTS = {"heap": "-Xmx16G", "properties": {"alluxio.user.metadata.cache.enabled": "true",
                                                         "alluxio.user.metadata.cache.max.size": "6000000"}}
# The client metadata cache's cost per entry in the FUSE heap: Alluxio's POSIX API docs (2.9.3,
# "metadata cache") size an entry at about 2 KB, doubled for the JVM's overhead.
METADATA_ENTRY_BYTES = 4096


def fuse_heap(jvm, default=None):
    """The FUSE JVM's heap in bytes: the last -Xmx of jvm_options.all and .fuse, else ``default``
    (an -Xmx option), else None."""
    return jvm_size(list(jvm.get("all") or []) + list(jvm.get("fuse") or []), "-Xmx") or jvm_size([default], "-Xmx")


def check_client_cache(properties, jvm, where, defaults=None):
    """A client cache in memory (store type MEM) keeps its pages in the FUSE JVM's heap (Alluxio
    2.9.3 MemoryPageStore allocates them as byte arrays), beside the client metadata cache, full:
    both must fit the heap the FUSE JVM gets (the last -Xmx of jvm_options.all and .fuse).
    ``defaults``: what the FUSE gets where the settings are silent (FLUID_FUSE_DEFAULTS for a Fluid
    runtime; None: Alluxio's, and a heap nothing sets, the JVM's own, is not checked). ``where``
    names the properties' variable."""
    defaults = defaults or {"properties": {}}
    settings = dict(defaults["properties"], **properties)

    def setting(key, default):
        return str(settings.get(key, default)).lower()

    if setting("alluxio.user.client.cache.enabled", "false") != "true" or setting("alluxio.user.client.cache.store.type", "LOCAL") != "mem":
        return
    heap = fuse_heap(jvm, defaults.get("heap"))
    if not heap:
        return
    size = settings.get("alluxio.user.client.cache.size", "512MB")
    metadata = 0
    if setting("alluxio.user.metadata.cache.enabled", "false") == "true":
        metadata = int(settings.get("alluxio.user.metadata.cache.max.size", 100000)) * METADATA_ENTRY_BYTES
    _require(parse_bytes(size) + metadata <= heap,
             "%s has alluxio.user.client.cache.size=%s with store type MEM: its pages live in the FUSE JVM's heap (%s), which "
             "also holds the client metadata cache (%s entries, %s when full): %s fits; lower the cache size or "
             "alluxio.user.metadata.cache.max.size, raise -Xmx in jvm_options.fuse, or use store type LOCAL (pages on disk)" % (
                 where, size, format_bytes(heap), settings.get("alluxio.user.metadata.cache.max.size", 100000) if metadata else 0,
                 format_bytes(metadata), "at most " + format_bytes(heap - metadata) if heap > metadata else "nothing"))


def set_jvm_options(values, jvm):
    """Puts merged ``jvm_options`` into chart values or an AlluxioRuntime's spec, which have the same
    fields: each component's under its key, ``all``'s at the top."""
    for component in JVM_COMPONENTS:
        if jvm.get(component):
            target = values if component == "all" else values.setdefault(component, {})
            target["jvmOptions"] = list(jvm[component])


def tolerations_of(taints, where):
    """Kubernetes tolerations for node taints ``{key, value, effect}`` (as fluidops_gpu_node_taints
    lists them): Equal when a value is given, else Exists."""
    _require(isinstance(taints, list) and all(isinstance(t, dict) and t.get("key") for t in taints),
             "%s=%s must be a list of {key, value, effect}" % (where, taints))
    return [dict({"operator": "Equal" if t.get("value") is not None else "Exists"}, **t) for t in taints]


def build_dataset(item, index, context):
    """Return ``{"manifests": [...], "warnings": [...]}`` for ``datasets_list[index]``.

    ``context`` holds ``profiles``, ``gpu_node_count``, ``accelerator_key``, ``accelerator``,
    ``namespace`` (the default namespace), ``tolerations`` (the GPU nodes' taints, which
    Fluid gives the runtime's master, worker and fuse pods through the Dataset) and
    ``thin_profiles`` (datasets_thin_profiles, which a ThinRuntime's ``thin_profile`` names).
    """
    where = "datasets_list[%d]" % index
    warnings = []
    typed(item, dict, where)
    name = str(item.get("name", ""))
    _require(_NAME.match(name) and len(name) <= 63, "%s.name=%s is not a Kubernetes name (lower case, digits, '-')" % (where, name or "(unset)"))
    where = "datasets_list[%d] (%s)" % (index, name)
    namespace = item.get("namespace", context["namespace"])
    mounts = typed(item.get("mounts"), list, where + ".mounts", default=[])
    _require(mounts, "%s.mounts is empty: list at least one mount_point" % where)
    for i, mount in enumerate(mounts):
        typed(mount, dict, "%s.mounts[%d]" % (where, i))
    runtime = item.get("runtime")
    kind = runtime.get("type", "alluxio") if isinstance(runtime, dict) else "alluxio"
    _require(kind not in CACHELESS or item.get("warmup") is None,
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
        _require(item["placement"] in PLACEMENTS, "%s.placement=%s is not one of %s" % (where, item["placement"], ", ".join(PLACEMENTS)))
        spec["placement"] = item["placement"]
    if "access_modes" in item:
        typed(item["access_modes"], list, where + ".access_modes")
        bad = [mode for mode in item["access_modes"] if mode not in ACCESS_MODES]
        _require(not bad, "%s.access_modes has %s: allowed are %s" % (where, ", ".join(bad), ", ".join(ACCESS_MODES)))
        spec["accessModes"] = list(item["access_modes"])

    meta = {"name": name, "namespace": namespace}
    dataset = {"apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "metadata": dict(meta), "spec": spec}
    runtime = _runtime(typed(item.get("runtime"), dict, where + ".runtime", default={}), "%s.runtime" % where, meta, context, warnings)
    return {"manifests": [dataset, runtime], "warnings": warnings}


def _runtime(runtime, where, meta, context, warnings):
    kind = runtime.get("type", "alluxio")
    _require(kind in RUNTIMES, "%s.type=%s is not one of %s" % (where, kind, ", ".join(sorted(RUNTIMES))))
    if kind in CACHELESS:
        return _thin_runtime(runtime, where, meta, context)
    replicas = runtime.get("replicas", context["gpu_node_count"])
    _require(isinstance(replicas, int) and 1 <= replicas <= context["gpu_node_count"],
             "%s.replicas=%s must be between 1 and the number of GPU nodes (%d): cache workers run on GPU nodes"
             % (where, replicas, context["gpu_node_count"]))
    tiers = typed(runtime.get("tiers"), list, where + ".tiers", default=[])
    for i, tier in enumerate(tiers):
        typed(tier, dict, "%s.tiers[%d]" % (where, i))
    _require(tiers, "%s.tiers is empty: give at least one tier (medium, path, quota)" % where)
    # Fluid's controller writes each level back as its Go struct (api/v1alpha1 Level): the default
    # volumeType hostPath and an empty volumeSource. A level without them would be put back on
    # every run (a CRD's list is replaced whole), so the manifest says them too.
    levels = [dict({"volumeType": "hostPath", "volumeSource": {}}, **build_tier(t, "%s.tiers[%d]" % (where, i)))
              for i, t in enumerate(tiers)]
    properties, jvm, fuse_env, fuse_args, (fuse_resources, resources_where) = merge_profile(runtime, context["profiles"], where + ".")
    held = sorted(set(properties) & set(KEY_PROPERTIES))
    _require(not held, "%s.properties (or its profile) holds %s: an object store's keys go in a Secret named by the mount's %s"
             % (where, ", ".join(held), " or ".join(store["field"] for store in STORES.values())))
    spec = {"replicas": replicas}
    if kind == "alluxio":
        errors, unknown = check_properties(properties, "%s.properties" % where)
        _require(not errors, "; ".join(errors))
        warnings.extend(unknown)
        check_client_cache(properties, jvm, "%s.properties (or its profile)" % where, defaults=FLUID_FUSE_DEFAULTS)
        spec["tieredstore"] = {"levels": levels}
        if "data_replicas" in runtime:
            spec["data"] = {"replicas": runtime["data_replicas"]}
        if properties:
            spec["properties"] = {k: str(v).lower() if isinstance(v, bool) else str(v) for k, v in properties.items()}
        set_jvm_options(spec, jvm)
    else:
        _require(len(levels) == 1, "%s.tiers has %d levels: JindoRuntime takes one" % (where, len(levels)))
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
    return {"apiVersion": "data.fluid.io/v1alpha1", "kind": RUNTIMES[kind], "metadata": dict(meta), "spec": spec}


# What a ThinRuntime takes from datasets_list: its profile names the FUSE program; there is no
# cache to size, tune or warm.
_THIN_KEYS = ("type", "thin_profile", "fuse_options")


def _thin_runtime(runtime, where, meta, context):
    names = [str(profile.get("name")) for profile in context.get("thin_profiles") or [] if isinstance(profile, dict)]
    profile = runtime.get("thin_profile")
    _require(profile in names, "%s.thin_profile=%s is not a profile of datasets_thin_profiles (%s)"
             % (where, profile if profile is not None else "(unset)", ", ".join(names) or "none is defined"))
    other = sorted(set(runtime) - set(_THIN_KEYS))
    _require(not other, "%s sets %s, which a ThinRuntime does not take: it keeps no cache and runs the FUSE program of "
             "its profile (allowed: %s)" % (where, ", ".join(other), ", ".join(_THIN_KEYS)))
    spec = {"profileName": profile}
    options = typed(runtime.get("fuse_options"), dict, where + ".fuse_options", default={})
    if options:
        spec["fuse"] = {"options": {str(key): str(value) for key, value in sorted(options.items())}}
    return {"apiVersion": "data.fluid.io/v1alpha1", "kind": RUNTIMES["thin"], "metadata": dict(meta), "spec": spec}


def build_thin_profile(item, index, registry=""):
    """A ThinRuntimeProfile (cluster-scoped) from ``datasets_thin_profiles[index]``: ``{name,
    file_system_type, image, pull_policy, command, args, env}``. Fluid's CSI plugin finds the mount
    by ``file_system_type`` in the node's mount table (fuse.s3fs for s3fs); ``image`` is a whole
    reference with its tag, sent to ``registry`` when one is set."""
    where = "datasets_thin_profiles[%d]" % index
    typed(item, dict, where)
    name = str(item.get("name", ""))
    _require(_NAME.match(name) and len(name) <= 63, "%s.name=%s is not a Kubernetes name (lower case, digits, '-')" % (where, name or "(unset)"))
    where = "%s (%s)" % (where, name)
    fs_type = item.get("file_system_type")
    _require(isinstance(fs_type, str) and fs_type.strip(), "%s.file_system_type=%s must name the mount's type as the "
             "node's mount table shows it, such as fuse.s3fs" % (where, fs_type if fs_type is not None else "(unset)"))
    repository, tag = split_image(mirrored(str(item.get("image") or ""), registry))
    _require(item.get("image") and tag, "%s.image=%s must be an image reference with its tag, such as "
             "registry.example.com/s3fs-fuse:1.90" % (where, item.get("image") or "(unset)"))
    policy = item.get("pull_policy", "IfNotPresent")
    _require(policy in PULL_POLICIES, "%s.pull_policy=%s is not one of %s" % (where, policy, ", ".join(PULL_POLICIES)))
    fuse = {"image": repository, "imageTag": tag, "imagePullPolicy": policy}
    for key in ("command", "args"):
        if item.get(key) is not None:
            fuse[key] = [str(part) for part in typed(item[key], list, "%s.%s" % (where, key))]
    env = typed(item.get("env"), dict, where + ".env", default={})
    if env:
        fuse["env"] = [{"name": str(key), "value": str(value)} for key, value in sorted(env.items())]
    return {"apiVersion": "data.fluid.io/v1alpha1", "kind": "ThinRuntimeProfile", "metadata": {"name": name},
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
    _require(_NAME.match(name) and len(name) <= 63, "%s.name=%s is not a Kubernetes name (lower case, digits, '-')" % (where, name or "(unset)"))
    where = "%s (%s)" % (where, name)
    _require(item.get("server"), "%s.server is not set: give the NFS server's host name or address" % where)
    path = str(item.get("path", ""))
    _require(path.startswith("/"), "%s.path=%s is not an absolute path on the NFS server" % (where, path or "(unset)"))
    capacity = item.get("capacity", "150Gi")
    _require(is_k8s_quantity(capacity) and parse_ok(capacity),
             "%s.capacity=%s is not a quantity such as 150Gi (Kubernetes' grammar: no space, no GB)" % (where, capacity))
    modes = list(typed(item.get("access_modes"), list, where + ".access_modes", default=["ReadOnlyMany"]))
    bad = [mode for mode in modes if mode not in ACCESS_MODES]
    _require(modes and not bad, "%s.access_modes has %s: allowed are %s" % (where, ", ".join(bad) or "nothing", ", ".join(ACCESS_MODES)))
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
    _require(store in STORES, "store=%s is not one of %s" % (store, ", ".join(sorted(STORES))))
    where = "%s[%s]" % (STORES[store]["variable"], name)
    _require(_NAME.match(str(name)) and len(str(name)) <= 63, "%s: the Secret name is not a Kubernetes name" % where)
    missing = [key for key in ("access_key_id", "access_key_secret") if not credentials.get(key)]
    _require(not missing, "%s lacks %s" % (where, " and ".join(missing)))
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
    _require(len(datasets) < 2 or wanted <= gpu_node_count,
             "datasets_list: %s use Exclusive placement (Fluid's default: one dataset's cache per node) and need %d of the "
             "%d GPU nodes: set placement: Shared, or fewer runtime replicas" % (", ".join(exclusive), wanted, gpu_node_count))
