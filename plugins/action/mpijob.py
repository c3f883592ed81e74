# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for fluidops.accel.mpijob: prints the job's state, the last training step read
from the launcher's log and what holds a pod that has not started, while the training runs (see
plugin_utils/sliced_wait.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.modules import mpijob
from ansible_collections.fluidops.accel.plugins.plugin_utils.sliced_wait import SlicedWaitAction


class ActionModule(SlicedWaitAction):
    MODULE = "fluidops.accel.mpijob"
    SPEC = staticmethod(mpijob.spec)

    def sliced(self, params):
        return super(ActionModule, self).sliced(params) and params["state"] == "present"

    def progress(self, params, outcome, seconds):
        throughput = outcome.get("throughput") or {}
        step = ", step %s at %s images/sec" % (throughput["last_step"], throughput["images_per_sec_at_last_step"]) \
            if throughput.get("last_step") else ""
        held = "; waiting: " + "; ".join(outcome["waiting"]) if outcome.get("waiting") else ""
        return "MPIJob %s %s%s%s" % (params["definition"]["metadata"]["name"], outcome.get("state") or "pending", step, held)
