# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Test plugin: ``value is fluidops.accel.k8s_name`` (or ``k8s_name('subdomain')``), the grammars
of module_utils/common/checks.py, so that a role's assert and the Python builders agree."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import LABEL_KEY, NAME_RULES, is_name


def k8s_name(value, rule="label"):
    if rule not in NAME_RULES and rule != LABEL_KEY:
        raise AnsibleFilterError("k8s_name: rule=%s is not one of %s" % (rule, ", ".join(sorted(list(NAME_RULES) + [LABEL_KEY]))))
    return is_name(value, rule)


class TestModule(object):
    def tests(self):
        return {"k8s_name": k8s_name}
