# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cache's tiers and the tuning profiles, shared by Fluid's runtimes and the standalone chart:
tier levels, profile merging, FUSE mount options, FUSE pod resources, JVM options and the client cache's fit
in the FUSE heap."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import re

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import require, typed
from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import cores, format_bytes, is_k8s_quantity, jvm_size, parse_bytes, parse_ok

# The JVMs a tuning profile's jvm_options name, and the chart value each sets: `all` is the charts'
# top-level jvmOptions (ALLUXIO_JAVA_OPTS), which every Alluxio process takes, job master and job
# worker included.
JVM_COMPONENTS = ("master", "worker", "fuse", "all")
MEDIA = ("MEM", "SSD", "HDD")
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
        require(not removed, "%s has %s, which libfuse 3 refuses (%s=3, set or by default): drop it, or set %s: \"2\" "
                "in the properties" % (where, ", ".join(removed), LIBFUSE_VERSION, LIBFUSE_VERSION))
    for option in options:
        require(_FUSE_OPTION.match(option), "%s has %s, which is not a FUSE mount option such as kernel_cache or attr_timeout=7200"
                % (where, option))
        name, _separator, value = option.partition("=")
        require(name != "direct_io", "%s has direct_io: seed 004 advises against it (no page cache, unstable under load); "
                "use kernel_cache" % where)
        require(name not in _FUSE_NUMBERS or re.match(r"^[0-9]+(\.[0-9]+)?$", value),
                "%s has %s: %s takes a number of %s, such as %s=%s" % (
                    where, option, name, "seconds" if name.endswith("timeout") else "bytes or requests", name,
                    "7200" if name.endswith("timeout") else "131072"))


def _fraction(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def build_tier(level, where):
    """A Fluid tieredstore level from ``{medium, path, quota, high, low, volume_type}``, checked."""
    medium = str(level.get("medium", level.get("mediumtype", "")))
    require(medium in MEDIA, "%s.medium=%s is not one of %s" % (where, medium or "(unset)", ", ".join(MEDIA)))
    path = str(level.get("path", ""))
    require(path and all(part.startswith("/") for part in path.split(",")),
            "%s.path=%s is not an absolute path (or a comma list of them)" % (where, path or "(unset)"))
    quota = level.get("quota")
    require(quota is not None and is_k8s_quantity(quota) and parse_ok(quota),
            "%s.quota=%s is not a quantity such as 100Gi or 180G (Kubernetes' grammar: no space, no GB)" % (where, quota))
    high, low = _fraction(level.get("high", "0.99")), _fraction(level.get("low", "0.8"))
    require(high is not None and low is not None and 0 < low < high <= 1,
            "%s watermarks high=%s low=%s must satisfy 0 < low < high <= 1" % (where, level.get("high", "0.99"), level.get("low", "0.8")))
    tier = {"mediumtype": medium, "path": path, "quota": str(quota), "high": str(level.get("high", "0.99")),
            "low": str(level.get("low", "0.8"))}
    if "volume_type" in level:
        tier["volumeType"] = level["volume_type"]
    return tier


def merge_profile(runtime, profiles, prefix):
    """(properties, jvm_options, fuse_env, fuse_args, fuse_resources) of the profile
    ``runtime["profile"]`` with the runtime's single-key overrides on top (its fuse_args and
    fuse_resources replace the profile's whole). ``prefix`` + key names each override's variable
    (``datasets_list[0] (imagenet).runtime.`` or ``alluxio_``)."""
    name = runtime.get("profile", "fluid-defaults")
    require(name in profiles, "%sprofile=%s is not a tuning profile: use one of %s" % (prefix, name, ", ".join(sorted(profiles))))
    profile = copy.deepcopy(profiles[name])
    merged = {}
    for key in ("properties", "jvm_options", "fuse_env"):
        merged[key] = dict(typed(profile.get(key), dict, "tuning profile %s: %s" % (name, key), default={}))
        merged[key].update(typed(runtime.get(key), dict, prefix + key, default={}))
    for component, options in sorted(merged["jvm_options"].items()):
        require(component in JVM_COMPONENTS, "%sjvm_options has %s, which is not one of %s"
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


def check_fuse_resources(resources, where, heap=None, memory_limit_needed=False):
    """The FUSE pods' ``{requests: {cpu, memory}, limits: {cpu, memory}}`` as Kubernetes takes them,
    the values as strings; a request above its limit, or a memory limit under the FUSE JVM's
    ``heap`` (bytes), is refused. ``memory_limit_needed``: any resource needs a memory limit (Fluid
    1.0.8 drops every FUSE resource of an AlluxioRuntime without one: transform_resources.go)."""
    typed(resources, dict, where)
    checked = {}
    for kind, quantities in resources.items():
        require(kind in ("requests", "limits"), "%s has %s: allowed are requests and limits" % (where, kind))
        for name, value in typed(quantities, dict, "%s.%s" % (where, kind)).items():
            require(name in _RESOURCE_NAMES, "%s.%s has %s: allowed are %s" % (where, kind, name, ", ".join(_RESOURCE_NAMES)))
            text = str(value)
            good = is_k8s_quantity(text) and (parse_ok(text) if name == "memory" else (cores(text) or 0) > 0)
            require(good, "%s.%s.%s=%s is not a quantity such as %s" % (where, kind, name, text, "8 or 500m" if name == "cpu" else "24Gi"))
            checked.setdefault(kind, {})[name] = text
    requests, limits = checked.get("requests", {}), checked.get("limits", {})
    for name in set(requests) & set(limits):
        size = cores if name == "cpu" else parse_bytes
        require(size(requests[name]) <= size(limits[name]), "%s.requests.%s=%s is above its limit %s" % (where, name, requests[name], limits[name]))
    require(not checked or not memory_limit_needed or "memory" in limits,
            "%s sets no limits.memory: Fluid 1.0.8 then drops every FUSE resource of the runtime (its cpu too); give the "
            "memory limit, the FUSE JVM's heap and direct memory" % where)
    require(not heap or "memory" not in limits or parse_bytes(limits["memory"]) >= heap,
            "%s.limits.memory=%s is under the FUSE JVM's heap (-Xmx, %s): the pod would be killed as its heap fills; give the "
            "heap and the direct memory the reads use" % (where, limits.get("memory"), format_bytes(heap or 0)))
    return checked


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
    require(parse_bytes(size) + metadata <= heap,
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
