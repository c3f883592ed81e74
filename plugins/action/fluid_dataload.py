# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for fluidops.accel.fluid_dataload: prints the DataLoad phase and the dataset's
cached percentage while the warm-up runs (see plugin_utils/sliced_wait.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.modules import fluid_dataload
from ansible_collections.fluidops.accel.plugins.plugin_utils.sliced_wait import SlicedWaitAction


class ActionModule(SlicedWaitAction):
    MODULE = "fluidops.accel.fluid_dataload"
    SPEC = staticmethod(fluid_dataload.spec)

    def sliced(self, params):
        return super(ActionModule, self).sliced(params) and params["policy"] == "Once" and params["state"] == "present"

    def progress(self, params, outcome, seconds):
        line = "DataLoad %s %s, dataset %s %s%% cached" % (
            params["name"], outcome.get("phase") or "pending", params["dataset"], outcome.get("cached_percentage"))
        if outcome.get("phase") == "Complete":  # the module waits for Fluid's next cache-state refresh
            line += ", waiting for Fluid to refresh the dataset's cache states"
        return line

    def combine(self, first, last, seconds, counts):
        # The first slice saw the cache before the load; the last one saw it after.
        loaded = max(0, (last.get("cached_bytes_before") or 0) + (last.get("bytes_loaded") or 0) - (first.get("cached_bytes_before") or 0))
        result = super(ActionModule, self).combine(first, last, seconds, counts)
        result.update(cached_bytes_before=first.get("cached_bytes_before"), bytes_loaded=loaded,
                      bytes_per_second=round(loaded / seconds, 1) if seconds else None)
        return result
