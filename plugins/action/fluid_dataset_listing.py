# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for fluidops.accel.fluid_dataset_listing: prints how many GPU nodes have listed
the dataset while the listing runs (see plugin_utils/sliced_wait.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.modules import fluid_dataset_listing
from ansible_collections.fluidops.accel.plugins.plugin_utils.sliced_wait import SlicedWaitAction


class ActionModule(SlicedWaitAction):
    MODULE = "fluidops.accel.fluid_dataset_listing"
    SPEC = staticmethod(fluid_dataset_listing.spec)

    def progress(self, params, outcome, seconds):
        progress = outcome.get("progress") or {}
        return "dataset %s listed on %s of %d nodes, %s listing" % (
            params["dataset"], progress.get("succeeded", 0), len(outcome.get("nodes") or []), progress.get("active", 0))
