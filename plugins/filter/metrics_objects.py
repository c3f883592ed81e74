# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: the objects that show a monitoring system where Fluid's controllers serve their metrics
(the datasets' own come with their manifests, dataset_objects.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.metrics import controller_metrics, controllers_of, resolve_mode
from ansible_collections.fluidops.accel.plugins.plugin_utils.schema_check import require_accepted


def fluid_metrics_objects(values, namespace, mode):
    """A headless Service per Fluid controller the release's ``values`` enable and, for
    servicemonitor, a ServiceMonitor over them; ``mode``: fluidops_metrics (auto unresolved is
    taken as annotations)."""
    try:
        objects = controller_metrics(namespace, controllers_of(values or {}), resolve_mode(mode, None))
        require_accepted(objects, "fluidops_metrics")
    except InputError as exc:
        raise AnsibleFilterError(str(exc)) from exc
    return objects


class FilterModule(object):
    def filters(self):
        return {"fluid_metrics_objects": fluid_metrics_objects}
