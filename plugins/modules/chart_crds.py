#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: chart_crds
short_description: Apply a chart's CustomResourceDefinitions server-side, skipping those a fingerprint shows unchanged
version_added: 1.1.0
author: fluidops contributors (!UNKNOWN)
description:
  - Applies each CRD of the files in I(src) server-side (C(kubectl apply --server-side)), as Helm
    does not upgrade the CRDs of a release.
  - Each applied CRD carries the SHA-256 of its manifest in the annotation C(fluidops.io/manifest-sha256)
    and the generation the API server gave it then in C(fluidops.io/applied-generation).
  - Lists the CRDs' metadata once; a CRD whose fingerprint matches its manifest and whose generation
    has not moved since (nobody changed its spec) is left alone. So a run where nothing changed makes
    one API request, instead of sending every CRD (Fluid's are about 1 MB) through Ansible and the API server.
  - In check mode it lists and reports which CRDs it would apply.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  src:
    description: YAML files holding the CRDs (several documents each allowed), applied in this order.
    type: list
    elements: path
    required: true
  field_manager:
    description: The field manager of the server-side apply.
    type: str
    default: fluidops
  force_conflicts:
    description: Take over fields another manager set (C(kubectl apply --server-side --force-conflicts)).
    type: bool
    default: true
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Apply the Fluid chart's CRDs
  fluidops.accel.chart_crds:
    src: "{{ query('ansible.builtin.fileglob', chart_dir ~ '/crds/*.yaml') | sort }}"
"""

RETURN = r"""
applied:
  description: The CRDs applied (in check mode, those that would be), in the order of I(src).
  returned: always
  type: list
  elements: str
  sample: [datasets.data.fluid.io]
unchanged:
  description: The CRDs whose fingerprint showed them unchanged.
  returned: always
  type: list
  elements: str
api_calls:
  description: API requests the module made (one list, then an apply and a patch for each CRD applied).
  returned: always
  type: int
reconnects:
  description: Always 0; the module does not watch.
  returned: always
  type: int
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

from ansible_collections.fluidops.accel.plugins.module_utils.k8s.crds import execute_module
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module


def spec():
    argument_spec = copy.deepcopy(AUTH_ARG_SPEC)
    argument_spec.update(src=dict(type="list", elements="path", required=True),
                         field_manager=dict(type="str", default="fluidops"), force_conflicts=dict(type="bool", default=True))
    return ModuleSpec(argument_spec)


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
