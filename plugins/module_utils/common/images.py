# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Container image references: sending them to a mirror registry, and finding them in the
objects a deployment creates.

A reference's first component is its registry when it has a dot or a colon or is ``localhost``
(the rule of Docker's reference grammar, distribution/reference's ``splitDockerDomain``);
otherwise the image is Docker Hub's, and a one-component name lives under ``library/``. A mirror
keeps the rest of the path: ``alluxio/alluxio-dev:2.9.0`` mirrored to ``mirror.example:5000`` is
``mirror.example:5000/alluxio/alluxio-dev:2.9.0``, as an operator copies images with skopeo."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# host[:port] and an optional path, with no scheme, tag or digest.
_REGISTRY = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
                       r"(?::[0-9]{1,5})?(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$")
# Helm values keys that hold an image's registry and namespace (Fluid's chart; JuiceFS's ce/ee).
PREFIX_KEYS = ("imagePrefix", "ceimagePrefix", "eeimagePrefix")


def split_registry(reference):
    """(registry or None, the rest) of an image reference or an image prefix."""
    first, separator, rest = str(reference).partition("/")
    if separator and ("." in first or ":" in first or first == "localhost"):
        return first, rest
    return None, str(reference)


def split_image(reference):
    """(repository, tag) of an image reference; the tag is empty when a digest or nothing pins it."""
    text = str(reference)
    if "@" in text:
        return text, ""
    repository, separator, tag = text.rpartition(":")
    if not separator or "/" in tag:
        return text, ""
    return repository, tag


def mirrored(reference, registry):
    """``reference`` as ``registry`` serves it; unchanged when ``registry`` is empty."""
    if not registry or not reference:
        return reference
    _origin, path = split_registry(reference)
    if "/" not in path.split("@", 1)[0].split(":", 1)[0]:
        path = "library/" + path
    return "%s/%s" % (str(registry).rstrip("/"), path)


def mirrored_prefixes(values, registry):
    """A Helm values override of the same nesting that sends every image prefix of ``values``
    (a chart's defaults) to ``registry``; empty when there is none or no registry."""
    if not registry or not isinstance(values, dict):
        return {}
    override = {}
    for name, child in values.items():
        if name in PREFIX_KEYS and isinstance(child, str):
            _origin, path = split_registry(child)
            override[name] = "%s/%s" % (str(registry).rstrip("/"), path)
        else:
            nested = mirrored_prefixes(child, registry)
            if nested:
                override[name] = nested
    return override


def registry_problems(variable, value):
    """A message for a registry setting that is not host[:port][/path]; none for an empty one."""
    text = "" if value is None else str(value)
    if not text or _REGISTRY.match(text):
        return []
    return ["%s=%s is not a registry: give its host, an optional port and path, with no scheme, tag or digest "
            "(registry.example.com:5000/mirror)" % (variable, text)]


def _pod_specs(obj):
    """The pod specs an object carries (a Pod, a workload's template, a Job in a CronJob,
    an MPIJob's replica templates)."""
    if not isinstance(obj, dict):
        return []
    spec = obj.get("spec") or {}
    if obj.get("kind") == "Pod":
        return [spec]
    found = []
    template = spec.get("template") or (spec.get("jobTemplate") or {}).get("spec", {}).get("template")
    if template:
        found.append(template.get("spec") or {})
    for replica in (spec.get("mpiReplicaSpecs") or {}).values():
        found.append(((replica or {}).get("template") or {}).get("spec") or {})
    return found


def manifest_images(objects):
    """Every image the objects run, sorted, once each: their containers' and init containers'
    images, the images Fluid's controllers take from their environment (``*_IMAGE_ENV``), and the
    FUSE image of a ThinRuntimeProfile (``image`` and ``imageTag``)."""
    images = set()
    for obj in objects or []:
        fuse = (obj.get("spec") or {}).get("fuse") or {} if isinstance(obj, dict) and obj.get("kind") == "ThinRuntimeProfile" else {}
        if fuse.get("image"):
            images.add("%s:%s" % (fuse["image"], fuse["imageTag"]) if fuse.get("imageTag") else fuse["image"])
        for pod_spec in _pod_specs(obj):
            for container in (pod_spec.get("containers") or []) + (pod_spec.get("initContainers") or []):
                if container.get("image"):
                    images.add(container["image"])
                for variable in container.get("env") or []:
                    if str(variable.get("name", "")).endswith("_IMAGE_ENV") and variable.get("value"):
                        images.add(variable["value"])
    return sorted(images)
