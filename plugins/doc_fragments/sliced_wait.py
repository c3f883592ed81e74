# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Options of the modules whose action plugin shows a long wait in slices (plugin_utils/sliced_wait.py),
as sliced_wait_spec in module_utils/k8s/waiter.py defines them (tests/unit/test_docs.py compares the two)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r"""
options:
  wait:
    description: Wait until the module's object is done; false returns as soon as it is created.
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds to wait (at least 1) before failing with the object's state; each module has its own default.
    type: int
  fail_on_timeout:
    description: When false, a wait that runs out returns the current state with I(timed_out=true) instead of failing.
    type: bool
    default: true
  progress_interval:
    description: Seconds (at least 1) between the progress lines the action plugin prints while waiting.
    type: int
    default: 30
"""
