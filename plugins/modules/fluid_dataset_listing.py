#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: fluid_dataset_listing
short_description: List a Fluid dataset through its claim on every GPU node, so that each node's FUSE client holds its metadata
version_added: 1.1.0
author: fluidops contributors (!UNKNOWN)
description:
  - A DataLoad fills the cache workers' blocks but not what each node's FUSE client keeps of the metadata (the
    kernel's entries and attributes, Alluxio's client metadata cache); a first epoch then asks the master for every
    file from every node. This module runs a C(Job) with one pod on each schedulable node of I(node_selector), each
    listing the dataset's claim read-only with C(ls -lR), and waits for it.
  - Under Fluid's default FUSE clean policy (C(OnRuntimeDeleted)) a node's FUSE pod, and what it holds, stays after
    the listing's pod ends; under C(OnDemand) it would go with it.
  - The pods run the image of the dataset's FUSE pods (its runtime's FUSE DaemonSet), which every node that mounts
    the claim pulls anyway, unless I(image) names another.
  - When the Job is Complete, the module records the listing (the Job's name, I(path) and the nodes) in the
    Dataset's C(fluidops.io/listed) annotation and deletes the Job, so no finished pod keeps the claim in use; a
    second run with the same settings and nodes lists nothing and reports no change.
  - A pod that fails fails the task with its node and the last lines of its log; the Job is deleted so that the next
    run lists again.
  - The action plugin of the same name prints how many nodes have listed every I(progress_interval) seconds.
  - In check mode nothing is created and nothing waits; the task reports whether it would list.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - fluidops.accel.sliced_wait
options:
  name:
    description: Name of the listing Job.
    type: str
    required: true
  namespace:
    description: Namespace of the dataset, its claim and the Job.
    type: str
    default: default
  dataset:
    description: The Fluid dataset; Fluid names its claim after it.
    type: str
    required: true
  path:
    description: The directory of the claim to list; empty lists the whole claim.
    type: str
    default: ""
  node_selector:
    description: Labels of the nodes to list on (the GPU nodes); every Ready node that is not cordoned gets one pod.
    type: dict
    required: true
  tolerations:
    description:
      - Node taints (C(key), C(value), C(effect)) the pods tolerate, as C(fluidops_gpu_node_taints) lists them;
        C(Equal) when a value is given, else C(Exists).
    type: list
    elements: dict
    default: []
  image:
    description: The pods' image, which needs C(sh) and C(ls); by default that of the dataset's FUSE pods.
    type: str
  wait:
    description: Wait until every node has listed.
  wait_timeout:
    default: 1800
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: List ImageNet on every V100 node after its warm-up
  fluidops.accel.fluid_dataset_listing:
    name: imagenet-listing
    dataset: imagenet
    node_selector: {aliyun.accelerator/nvidia_name: Tesla-V100-SXM2-16GB}
    tolerations: [{key: fluidops.io/dedicated, value: training, effect: NoSchedule}]
"""

RETURN = r"""
listed:
  description: Whether this run listed (false when the Dataset's record already covers these settings and nodes).
  returned: always
  type: bool
nodes:
  description: The nodes listed on (in check mode, those that would be).
  returned: always
  type: list
  elements: str
files:
  description: The files each node's pod found, by node name (a node whose log cannot be read is left out).
  returned: when the listing ran to its end
  type: dict
  sample: {gpu-node-1: 1281167}
seconds:
  description: Seconds the module waited.
  returned: always
  type: float
timed_out:
  description: True when the wait ran out (only returned without failing when I(fail_on_timeout=false)).
  returned: always
  type: bool
progress:
  description: The Job's pods that succeeded, failed and are active.
  returned: always
  type: dict
api_calls:
  description: API requests the module made.
  returned: always
  type: int
reconnects:
  description: Attempts to list again after a wait's watch connection dropped.
  returned: always
  type: int
"""

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.listing import execute_module
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module


def spec():
    return ModuleSpec.sliced_wait(1800, dict(
        name=dict(type="str", required=True),
        namespace=dict(type="str", default="default"),
        dataset=dict(type="str", required=True),
        path=dict(type="str", default=""),
        node_selector=dict(type="dict", required=True),
        tolerations=dict(type="list", elements="dict", default=[]),
        image=dict(type="str"),
    ), check=lambda params: [] if params["node_selector"] else ["node_selector={} selects every node: give the GPU nodes' labels"])


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
