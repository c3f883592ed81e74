# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter schema_problems: what the apiserver and the controllers of the pinned versions would refuse
in a list of Kubernetes objects, checked offline (plugin_utils/schema_check.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.plugin_utils.schema_check import SchemaCheckError, problems


def schema_problems(objects):
    """One line a problem in ``objects``, a list of Kubernetes objects; empty when all is well."""
    try:
        # Plain types only (templating hands over str and dict subclasses).
        plain = json.loads(json.dumps(objects, default=str))
        return problems(plain)
    except (SchemaCheckError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("schema_problems: %s" % exc) from exc


class FilterModule(object):
    def filters(self):
        return {"schema_problems": schema_problems}
