# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: a task's arguments checked by the module's own spec, before the run gets to the task."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import json
import re

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

# The project's modules that declare a ModuleSpec (plugins/modules/<name>.py, spec()).
MODULES = ("fluid_dataload", "fluid_dataset_listing", "fluid_dataset_info", "fluid_runtime_workers", "mpijob", "alluxio_cluster_info")


def module_args_problems(args, module, variables=None):
    """What the module ``fluidops.accel.<module>`` would refuse in ``args``: its argument spec (types,
    choices, rules) and its bounds, worded as the module words them, with each option named by the
    variable it comes from when ``variables`` ({option: variable}) says so."""
    if module not in MODULES:
        raise AnsibleFilterError("module_args_problems: %s is not one of %s" % (module, ", ".join(MODULES)))
    spec = importlib.import_module("ansible_collections.fluidops.accel.plugins.modules." + module).spec()
    # A plain copy: the validator writes defaults into what it is given, which must not be the
    # templating engine's lazy containers of the play's variables.
    validation = ArgumentSpecValidator(spec.argument_spec, **spec.rules).validate(json.loads(json.dumps(args)))
    problems = [error.msg for error in validation.errors] or spec.errors(validation.validated_parameters)
    for option, variable in sorted((variables or {}).items()):
        problems = [re.sub(r"(?<![\w.])%s(?=[=\s':])" % re.escape(option), variable, problem) for problem in problems]
    return problems


class FilterModule(object):
    def filters(self):
        return {"module_args_problems": module_args_problems}
