#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: fluid_dataset_info
short_description: Read the cache state of Fluid datasets, and wait for Bound or a cached percentage
version_added: 1.0.0
author: fluidops contributors (!UNKNOWN)
description:
  - Reads Fluid C(Dataset) objects and the runtime bound to each (AlluxioRuntime, JindoRuntime, ...) and
    returns what C(kubectl get dataset) and C(kubectl get alluxioruntime) show, as numbers a playbook can
    compare - phase, UFS total, cached bytes, cache capacity, cached percentage, hit ratios, the master,
    worker and FUSE phases with ready and desired counts, and the conditions.
  - With I(wait), waits (bounded by I(wait_timeout)) until every dataset is in phase I(wait_phase) and, if
    I(wait_cached_percentage) is given, has at least that much cached. It lists once, then follows a watch,
    so a wait makes about one API request a minute. On a timeout the task fails with the reason - the
    dataset's conditions, the recent events of the dataset and its runtime, and the runtime's pods that
    are not ready.
  - Works on several datasets at once; each name is looked up in I(namespace).
  - In check mode it reads as usual and never waits.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  name:
    description:
      - Names of the datasets. Omit to read every dataset of I(namespace).
      - A name that does not exist fails the task, naming the datasets that do.
    type: list
    elements: str
    aliases: [names]
  namespace:
    description: Namespace of the datasets.
    type: str
    default: default
  wait:
    description: Wait until every dataset reaches I(wait_phase) (and I(wait_cached_percentage)).
    type: bool
    default: false
  wait_phase:
    description: The phase to wait for; empty to wait on the cached percentage alone.
    type: str
    default: Bound
  wait_cached_percentage:
    description: The cached percentage (0-100) to wait for, in addition to I(wait_phase).
    type: float
  wait_timeout:
    description: Seconds to wait before failing with the reason.
    type: int
    default: 300
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
notes:
  - The status of Fluid 1.0 is read as it is; sizes such as C(143.67GiB) become bytes and C("87.5%") becomes 87.5.
    Values a runtime has not reported yet are null.
"""

EXAMPLES = r"""
- name: Read the cache state of every dataset in default
  fluidops.accel.fluid_dataset_info:
    namespace: default
  register: cache

- name: Print it like kubectl get dataset
  ansible.builtin.debug:
    msg: "{{ cache.table }}"

- name: Wait until ImageNet is Bound and fully cached
  fluidops.accel.fluid_dataset_info:
    name: [imagenet]
    wait: true
    wait_cached_percentage: 100
    wait_timeout: 1800
"""

RETURN = r"""
datasets:
  description: One entry per dataset, in the order asked for.
  returned: always
  type: list
  elements: dict
  contains:
    name: {description: Dataset name., type: str, sample: imagenet}
    namespace: {description: Its namespace., type: str, sample: default}
    phase: {description: C(status.phase); empty before Fluid sets one., type: str, sample: Bound}
    ufs_total: {description: C(status.ufsTotal) as Fluid wrote it., type: str, sample: 143.67GiB}
    ufs_total_bytes: {description: The same in bytes; null when not reported., type: int, sample: 154266496040}
    cached_bytes: {description: Bytes in the cache., type: int, sample: 0}
    cache_capacity_bytes: {description: Capacity of the cache tiers over all workers., type: int, sample: 695784701952}
    cached_percentage: {description: "Cached share of the UFS, 0-100.", type: float, sample: 87.5}
    hit_ratios: {description: "The hit and throughput ratios Fluid reports, as numbers 0-100.", type: dict}
    runtime_kind: {description: The kind of the bound runtime., type: str, sample: AlluxioRuntime}
    runtime:
      description: Phases and ready/desired/scheduled counts of master, worker and fuse, and the runtime's conditions.
      type: dict
    conditions: {description: "The dataset's conditions (type, status, reason, message, lastTransitionTime).", type: list, elements: dict}
table:
  description: The datasets as C(kubectl get dataset) prints them, plus the runtime phases.
  returned: always
  type: str
waited:
  description: Seconds spent waiting (0 without I(wait) or in check mode).
  returned: always
  type: float
api_calls:
  description: API requests the module made (lists, gets and watch requests).
  returned: always
  type: int
reconnects:
  description: Attempts to list again after a wait's watch connection dropped (a pause between refused ones); the wait then watches on.
  returned: always
  type: int
reasons:
  description: On a timeout, why each dataset is not ready - conditions, events of the dataset and runtime, pods not ready.
  returned: failure
  type: dict
"""

import copy

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.dataset_info import execute_module
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module


def spec():
    argument_spec = copy.deepcopy(AUTH_ARG_SPEC)
    argument_spec.update(
        name=dict(type="list", elements="str", aliases=["names"]),
        namespace=dict(type="str", default="default"),
        wait=dict(type="bool", default=False),
        wait_phase=dict(type="str", default="Bound"),
        wait_cached_percentage=dict(type="float"),
        wait_timeout=dict(type="int", default=300),
    )
    return ModuleSpec(argument_spec, bounds=dict(wait_timeout=(1, None, "seconds"), wait_cached_percentage=(0, 100)))


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
