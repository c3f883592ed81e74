# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin for fluidops.accel.fluid_dataload: shows the warm-up while it runs.

A module cannot print while it runs, so this runs it in slices of ``progress_interval``
seconds (each slice a bounded watch in the module) and prints the DataLoad phase and the
dataset's cached percentage between slices. The result is the module's, with the seconds,
bytes and rate counted over the whole wait. Without a wait, or in check mode, the module runs
once as it is.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

display = Display()


class ActionModule(ActionBase):
    _VALID_ARGS = None  # the module's argument spec does the checking

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = dict(self._task.args)
        wait = args.get("wait", True) not in (False, "false", "no", "False")
        once = args.get("policy", "Once") == "Once"
        if not wait or not once or self._play_context.check_mode or args.get("state", "present") == "absent":
            return self._run(args, task_vars, result)

        total = int(args.get("wait_timeout", 1800))
        interval = max(1, int(args.get("progress_interval", 30)))
        started = time.monotonic()
        first, calls = None, 0
        while True:
            left = total - (time.monotonic() - started)
            last_slice = left <= interval
            args.update(wait_timeout=max(1, int(min(interval, left))), fail_on_timeout=last_slice and args.get("fail_on_timeout", True))
            outcome = self._execute_module(module_name="fluidops.accel.fluid_dataload", module_args=args, task_vars=task_vars)
            first = first or outcome
            calls += outcome.get("api_calls") or 0
            if outcome.get("failed") or not outcome.get("timed_out") or last_slice:
                break
            display.display("  %s: DataLoad %s %s, dataset %s %s%% cached (%ds)" % (
                self._task.get_name(), args["name"], outcome.get("phase") or "pending", args["dataset"],
                outcome.get("cached_percentage"), time.monotonic() - started))

        if outcome.get("failed") and "cached_bytes_before" not in outcome:
            result.update(outcome)  # failed before any wait: nothing to add up
            return result
        # Over the whole wait: the first slice saw the cache before, the last one after.
        seconds = round(time.monotonic() - started, 1)
        loaded = max(0, loaded_between(first, outcome))
        outcome["changed"] = bool(first.get("changed"))
        outcome["seconds"] = seconds
        outcome["cached_bytes_before"] = first.get("cached_bytes_before")
        outcome["bytes_loaded"] = loaded
        outcome["bytes_per_second"] = round(outcome["bytes_loaded"] / seconds, 1) if seconds else None
        outcome["api_calls"] = calls
        result.update(outcome)
        return result

    def _run(self, args, task_vars, result):
        result.update(self._execute_module(module_name="fluidops.accel.fluid_dataload", module_args=args, task_vars=task_vars))
        return result


def loaded_between(first, last):
    """Bytes gained from the first slice's start to the last slice's end."""
    if first is last:
        return last.get("bytes_loaded") or 0
    return (last.get("cached_bytes_before") or 0) + (last.get("bytes_loaded") or 0) - (first.get("cached_bytes_before") or 0)
