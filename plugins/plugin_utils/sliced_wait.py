# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shows a long wait while it runs: the base of the action plugins of waiting modules.

A module cannot print while it runs, so the action runs it in slices of ``progress_interval``
seconds (each a bounded watch in the module, with ``fail_on_timeout: false``) and prints one
progress line between slices. The last slice gets the rest of ``wait_timeout`` and the user's
``fail_on_timeout``, so a timeout fails with the module's own reasons. Subclasses name the
module, say when not to slice, write the progress line and add up the slices' results.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

display = Display()


class SlicedWaitAction(ActionBase):
    _VALID_ARGS = None  # the module's argument spec does the checking
    MODULE = None
    DEFAULT_TIMEOUT = 1800

    def sliced(self, args):
        """Whether this call waits (and so is worth slicing)."""
        return boolean(args.get("wait", True), strict=False) and not self._play_context.check_mode

    def progress(self, args, outcome, seconds):
        raise NotImplementedError

    def combine(self, first, last, seconds, api_calls):
        """The result of the whole wait from the first and last slices."""
        last["seconds"] = seconds
        last["api_calls"] = api_calls
        last["changed"] = bool(first.get("changed"))
        return last

    def run(self, tmp=None, task_vars=None):
        result = super(SlicedWaitAction, self).run(tmp, task_vars)
        args = dict(self._task.args)
        if not self.sliced(args):
            result.update(self._execute_module(module_name=self.MODULE, module_args=args, task_vars=task_vars))
            return result

        total = int(args.get("wait_timeout", self.DEFAULT_TIMEOUT))
        interval = max(1, int(args.get("progress_interval", 30)))
        fail_on_timeout = boolean(args.get("fail_on_timeout", True), strict=False)
        started = time.monotonic()
        first, calls = None, 0
        while True:
            left = total - (time.monotonic() - started)
            last_slice = left <= interval
            args.update(wait_timeout=max(1, int(min(interval, left))), fail_on_timeout=last_slice and fail_on_timeout)
            outcome = self._execute_module(module_name=self.MODULE, module_args=args, task_vars=task_vars)
            first = first or outcome
            calls += outcome.get("api_calls") or 0
            if outcome.get("failed") or not outcome.get("timed_out") or last_slice:
                break
            display.display("  %s: %s (%ds)" % (self._task.get_name(), self.progress(args, outcome, time.monotonic() - started),
                                                  time.monotonic() - started))
        if outcome.get("failed") and first is outcome and "timed_out" not in outcome:
            result.update(outcome)  # failed before any wait: nothing to add up
            return result
        result.update(self.combine(first, outcome, round(time.monotonic() - started, 1), calls))
        return result
