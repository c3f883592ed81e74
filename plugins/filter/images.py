# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters for container images: image_mirror, mirror_image_prefixes, manifest_images, registry_problems."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.common import images


def image_mirror(reference, registry):
    """The image reference as the mirror registry serves it (unchanged without a registry)."""
    return images.mirrored(reference, registry)


def mirror_image_prefixes(values, registry):
    """A Helm values override sending every image prefix of the chart's values to the registry."""
    return images.mirrored_prefixes(values, registry)


def manifest_images(objects):
    """Every image the Kubernetes objects run, sorted, once each."""
    return images.manifest_images(objects)


def registry_problems(value, variable="fluidops_image_registry"):
    """Messages for a registry setting that is not host[:port][/path]; empty when it is, or empty."""
    return images.registry_problems(variable, value)


class FilterModule(object):
    def filters(self):
        return {"image_mirror": image_mirror, "mirror_image_prefixes": mirror_image_prefixes,
                "manifest_images": manifest_images, "registry_problems": registry_problems}
