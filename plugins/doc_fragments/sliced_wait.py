# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Options of the modules whose action plugin shows a long wait in slices (plugin_utils/sliced_wait.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    DOCUMENTATION = r"""
options:
  fail_on_timeout:
    description: When false, a wait that runs out returns the current state with I(timed_out=true) instead of failing.
    type: bool
    default: true
  progress_interval:
    description: Seconds between the progress lines the action plugin prints while waiting.
    type: int
    default: 30
"""
