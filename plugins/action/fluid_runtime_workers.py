# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for fluidops.accel.fluid_runtime_workers: prints each dataset's Ready cache workers
and cache capacity while the runtimes scale (see plugin_utils/sliced_wait.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.modules import fluid_runtime_workers
from ansible_collections.fluidops.accel.plugins.plugin_utils.sliced_wait import SlicedWaitAction


class ActionModule(SlicedWaitAction):
    MODULE = "fluidops.accel.fluid_runtime_workers"
    SPEC = staticmethod(fluid_runtime_workers.spec)

    def progress(self, params, outcome, seconds):
        lines = []
        for runtime in outcome.get("runtimes") or []:
            line = "%s: %s/%s cache workers Ready" % (runtime["name"], runtime["workers_ready"], runtime["replicas"])
            if runtime.get("expected_cache_capacity"):
                line += ", cache capacity %s of %s" % (runtime.get("cache_capacity") or "-", runtime["expected_cache_capacity"])
            lines.append(line)
        return ", ".join(lines)

    def combine(self, first, last, seconds, counts):
        # Only the first slice patches: the later ones find the replicas already set.
        result = super(ActionModule, self).combine(first, last, seconds, counts)
        before = {runtime["name"]: runtime["previous_replicas"] for runtime in first.get("runtimes") or []}
        for runtime in result.get("runtimes") or []:
            runtime["previous_replicas"] = before.get(runtime["name"], runtime["previous_replicas"])
        result["patched"] = first.get("patched") or []
        return result
