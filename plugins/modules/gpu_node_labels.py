#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: gpu_node_labels
short_description: Label and taint many Kubernetes nodes with one list and a patch for each node that differs
version_added: 1.0.0
author: fluidops contributors (!UNKNOWN)
description:
  - Gives each node in I(nodes) its labels and taints through a JSON merge patch, as
    C(kubectl patch node --type=merge) does, keeping the taints others set.
  - Lists the nodes once and patches only the nodes whose labels, taints or bookkeeping annotations
    differ, so a run where nothing changed makes one API request however many nodes there are.
  - Records what it manages in the annotations C(fluidops.io/managed-labels) and
    C(fluidops.io/managed-taints); with I(remove_dropped) on an entry, a key listed there that the
    entry no longer asks for is removed from the node.
  - A node that does not exist fails the task before any node is patched, naming the host.
  - In check mode it lists and reports what it would patch.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  nodes:
    description: One entry per node.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: The Kubernetes node's name.
        type: str
        required: true
      host:
        description: The inventory host the node belongs to, for messages.
        type: str
      labels:
        description: "The labels the node carries, C({key: value})."
        type: dict
        default: {}
      taints:
        description: The taints this module manages on the node (C(key), C(value), C(effect)).
        type: list
        elements: dict
        default: []
      remove_dropped:
        description: Remove the labels and taints an earlier run set that the entry no longer lists.
        type: bool
        default: false
      state:
        description:
          - C(absent) takes off the node every label and taint the annotations list as managed, and the two
            annotations (a node leaving the GPU pool); I(labels), I(taints) and I(remove_dropped) are not read.
        type: str
        choices: [present, absent]
        default: present
        version_added: 1.1.0
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Label two GPU nodes and taint them for training
  fluidops.accel.gpu_node_labels:
    nodes:
      - name: gpu-node-1
        labels: {aliyun.accelerator/nvidia_name: Tesla-V100-SXM2-16GB}
        taints: [{key: fluidops.io/dedicated, value: training, effect: NoSchedule}]
      - name: gpu-node-2
        labels: {aliyun.accelerator/nvidia_name: Tesla-V100-SXM2-16GB}
        taints: [{key: fluidops.io/dedicated, value: training, effect: NoSchedule}]
"""

RETURN = r"""
patched:
  description:
    - The nodes patched (in check mode, those that would be), sorted by name whatever the order of I(nodes),
      so a report reads the same from run to run.
  returned: always
  type: list
  elements: str
  sample: [gpu-node-1]
patches:
  description: The merge patch of each node in I(patched).
  returned: always
  type: dict
api_calls:
  description: API requests the module made (one list, one patch per node patched).
  returned: always
  type: int
reconnects:
  description: Always 0; the module does not watch.
  returned: always
  type: int
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

from ansible_collections.fluidops.accel.plugins.module_utils.k8s.node_labels import plan
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module

NODE_SPEC = dict(
    name=dict(type="str", required=True),
    host=dict(type="str"),
    labels=dict(type="dict", default={}),
    taints=dict(type="list", elements="dict", default=[]),
    remove_dropped=dict(type="bool", default=False),
    state=dict(type="str", choices=["present", "absent"], default="present"),
)


def spec():
    argument_spec = copy.deepcopy(AUTH_ARG_SPEC)
    argument_spec.update(nodes=dict(type="list", elements="dict", required=True, options=NODE_SPEC))
    return ModuleSpec(argument_spec)


def execute_module(module, client):
    wanted = module.params["nodes"]
    nodes, _unused = client.list("Node", None, api_version="v1")
    patches, missing = plan(nodes, wanted)
    if missing:
        module.fail_json(msg=" ".join(missing), **client.counts())
    # ansible_play_hosts follows the inventory, whose order is not stable across runs.
    patched = sorted({entry["name"] for entry in wanted if entry["name"] in patches})
    if not module.check_mode:
        for name in patched:
            client.patch("Node", name, None, patches[name], api_version="v1")
    module.exit_json(changed=bool(patched), patched=patched, patches={name: patches[name] for name in patched}, **client.counts())


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
