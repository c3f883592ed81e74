# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The entry point of the project's Kubernetes modules.

Each module declares what it accepts in a ``ModuleSpec``, which its action plugin, if it has
one, checks too; ``run_module`` builds the module and its client and runs the module's logic.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import get_api_client

from ansible_collections.fluidops.accel.plugins.module_utils.k8s.client import CONNECTION_ERRORS, ApiUnreachable, KubeClient
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import SLICED_WAIT_BOUNDS, sliced_wait_spec


class ModuleSpec(object):
    """What a module accepts, declared once for its entry point (``run_module``) and its action
    plugin: the argument spec, AnsibleModule's rules between options (required_if, ...), the bounds
    of its numbers, {option: (least, most)} or (least, most, unit) with None for no limit, and
    ``check``, a function of the parameters that returns what else is wrong with them."""

    def __init__(self, argument_spec, bounds=None, check=None, **rules):
        self.argument_spec = argument_spec
        self.bounds = bounds or {}
        self.check = check
        self.rules = rules

    def errors(self, params):
        """One message per bad parameter, naming the option, its value and what is allowed."""
        errors = []
        for option, bound in self.bounds.items():
            least, most, unit = (tuple(bound) + ("",))[:3]
            value = params.get(option)
            if value is None or ((least is None or value >= least) and (most is None or value <= most)):
                continue
            allowed = ("between %s and %s" % (least, most) if least is not None and most is not None
                       else "%s or more" % least if least is not None else "%s or less" % most)
            errors.append("%s=%s must be %s%s" % (option, value, allowed, " " + unit if unit else ""))
        return errors + (self.check(params) if self.check else [])

    @classmethod
    def sliced_wait(cls, wait_timeout, options, bounds=None, **rules):
        """The spec of a module whose action plugin waits in slices: kubernetes.core's auth options,
        the sliced-wait options with the module's own default wait and their bounds, then its own."""
        from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

        argument_spec = copy.deepcopy(AUTH_ARG_SPEC)
        argument_spec.update(sliced_wait_spec(wait_timeout=wait_timeout))
        argument_spec.update(options)
        return cls(argument_spec, bounds=dict(SLICED_WAIT_BOUNDS, **(bounds or {})), **rules)


def run_module(spec, execute):
    """The entry point of the project's Kubernetes modules: kubernetes.core's module class (its
    dependency checks and auth options), the spec's bounds and checks before any API call, then
    ``execute(module, client)`` with the client's errors turned into failures."""
    from ansible_collections.kubernetes.core.plugins.module_utils.ansiblemodule import AnsibleModule
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s.exceptions import CoreException

    module = AnsibleK8SModule(module_class=AnsibleModule, argument_spec=spec.argument_spec, supports_check_mode=True, **spec.rules)
    errors = spec.errors(module.params)
    if errors:
        module.fail_json(msg="; ".join(errors))
    try:
        execute(module, KubeClient(get_api_client(module)))
    except CoreException as exc:
        module.fail_from_exception(exc)
    except ApiUnreachable as exc:
        module.fail_json(msg=str(exc))
    except Exception as exc:
        if not isinstance(exc, CONNECTION_ERRORS):
            raise
        module.fail_json(msg="Could not reach the API server: %s" % exc)
