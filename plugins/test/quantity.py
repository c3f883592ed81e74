# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Test plugin: ``value is fluidops.accel.quantity``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import is_quantity


class TestModule(object):
    def tests(self):
        return {"quantity": is_quantity}
