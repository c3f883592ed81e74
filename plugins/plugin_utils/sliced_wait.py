# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Shows a long wait while it runs: the base of the action plugins of waiting modules.

A module cannot print while it runs, so the action runs it in slices of ``progress_interval``
seconds (each a bounded watch in the module, with ``fail_on_timeout: false``) and prints one
progress line between slices. The last slice gets the rest of ``wait_timeout`` and the user's
``fail_on_timeout``, so a timeout fails with the module's own reasons. Subclasses name the
module and its spec, say when not to slice, write the progress line and add up the slices' results.

The task's arguments are checked against the module's own spec (types, defaults, rules, bounds)
before anything runs, so a bad value fails here as it would in the module, and the action reads
the module's defaults instead of guessing them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.errors import UnsupportedError
from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import timed_out_after

display = Display()


class SlicedWaitAction(ActionBase):
    _VALID_ARGS = None  # the module's spec does the checking, in run
    MODULE = None  # the module's name
    SPEC = None  # the function that returns the module's ModuleSpec
    clock = staticmethod(time.monotonic)

    def sliced(self, params):
        """Whether this call waits (and so is worth slicing)."""
        return params["wait"] and not self._play_context.check_mode

    def progress(self, params, outcome, seconds):
        raise NotImplementedError

    def combine(self, first, last, seconds, counts):
        """The result of the whole wait from the first and last slices; ``counts`` adds up the
        slices' api_calls and reconnects."""
        last["seconds"] = seconds
        last.update(counts)
        last["changed"] = bool(first.get("changed"))
        return last

    def checked(self):
        """(the task's arguments as the module reads them: its defaults, its types; None), or (None,
        what is wrong, worded as the module words it), by the module's own spec."""
        spec = self.SPEC()
        validation = ArgumentSpecValidator(spec.argument_spec, **spec.rules).validate(self._task.args)
        if validation.errors.errors:  # the first, as AnsibleModule reports it
            error = validation.errors[0]
            return None, ("Unsupported parameters for (%s) module: %s" % (self.MODULE, error.msg)
                          if isinstance(error, UnsupportedError) else error.msg)
        errors = spec.errors(validation.validated_parameters)
        return (None, "; ".join(errors)) if errors else (validation.validated_parameters, None)

    def run(self, tmp=None, task_vars=None):
        result = super(SlicedWaitAction, self).run(tmp, task_vars)
        params, error = self.checked()
        if error:
            result.update(failed=True, msg=error)
            return result
        args = dict(self._task.args)
        if not self.sliced(params):
            result.update(self._execute_module(module_name=self.MODULE, module_args=args, task_vars=task_vars))
            return result

        total, interval = params["wait_timeout"], params["progress_interval"]
        started = self.clock()
        first, counts = None, dict(api_calls=0, reconnects=0)
        while True:
            left = total - (self.clock() - started)
            last_slice = left <= interval
            args.update(wait_timeout=max(1, int(min(interval, left))), fail_on_timeout=last_slice and params["fail_on_timeout"])
            outcome = self._execute_module(module_name=self.MODULE, module_args=args, task_vars=task_vars)
            first = first or outcome
            for key in counts:
                counts[key] += outcome.get(key) or 0
            if outcome.get("failed") or not outcome.get("timed_out") or last_slice:
                break
            seconds = self.clock() - started
            display.display("  %s: %s (%ds)" % (self._task.get_name(), self.progress(params, outcome, seconds), seconds))
        if outcome.get("failed") and first is outcome and "timed_out" not in outcome:
            result.update(outcome)  # failed before any wait: nothing to add up
            return result
        if outcome.get("failed") and outcome.get("timed_out"):
            # The module knows only its slice: the message names the whole wait.
            outcome["msg"] = outcome["msg"].replace(timed_out_after(args["wait_timeout"]), timed_out_after(total), 1)
            # ansible-core (2.19) has already captured the module's error from its msg, and shows
            # that capture: dropped, it is captured again from the message above.
            outcome.pop("exception", None)
        result.update(self.combine(first, outcome, round(self.clock() - started, 1), counts))
        return result
