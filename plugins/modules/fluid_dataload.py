#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: fluid_dataload
short_description: Warm a Fluid dataset's cache with a DataLoad and check how much got cached
version_added: 1.0.0
author: fluidops contributors (!UNKNOWN)
description:
  - Creates a Fluid C(DataLoad) for a dataset, idempotent by name - a DataLoad of that name and the same
    spec is left alone (and waited for), one with another spec fails the task rather than being changed
    under a running load.
  - Waits (bounded by I(wait_timeout)) until the DataLoad is C(Complete), following a watch, then reads the
    dataset and checks its cached percentage against I(cached_percentage).
  - Fluid copies the cache states into the dataset only when the runtime controller reconciles, so the figure
    read at C(Complete) can be one taken before the load ended; below I(cached_percentage), the module follows
    the dataset for up to I(cache_refresh_timeout) seconds after the DataLoad completed before it fails.
  - A figure above 100 is followed within the same window, as Alluxio counts the room a worker holds for blocks still
    being written as used, so a figure read during the load can pass 100 and fall back once they are committed;
    one still above 100 when the window closes is taken as it is.
  - Returns the phase, the duration, the bytes loaded and the bytes loaded per second.
  - A C(Failed) DataLoad fails the task with the DataLoad's own conditions and the last lines of its loader pod's log.
  - The action plugin of the same name prints the DataLoad phase and the dataset's cached percentage every
    I(progress_interval) seconds while it waits.
  - In check mode nothing is created and nothing waits; the task reports whether it would create the DataLoad.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - fluidops.accel.sliced_wait
options:
  name:
    description: Name of the DataLoad.
    type: str
    required: true
  namespace:
    description: Namespace of the DataLoad and of its dataset (Fluid requires the same one).
    type: str
    default: default
  dataset:
    description: Name of the Fluid dataset to warm.
    type: str
    required: true
  targets:
    description: Paths to load, with the number of cached replicas of each; empty loads the whole dataset.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Path in the dataset's Alluxio namespace, where Fluid mounts each mount under C(/<mount name>), such as C(/imagenet/train).
        type: str
        required: true
      replicas:
        description: Cached copies of each block of the path.
        type: int
        default: 1
  load_metadata:
    description: Sync the dataset's metadata from the under-filesystem before loading.
    type: bool
    default: false
  tolerations:
    description:
      - Node taints (C(key), C(value), C(effect)) the loader pod tolerates, as the GPU nodes' taints are listed in
        C(fluidops_gpu_node_taints); C(Equal) when a value is given, else C(Exists).
    type: list
    elements: dict
    default: []
  policy:
    description: C(Once) loads once; C(Cron) loads on I(schedule); C(OnEvent) on Fluid's events.
    type: str
    choices: [Once, Cron, OnEvent]
    default: Once
  schedule:
    description: Cron schedule, required with I(policy=Cron).
    type: str
  state:
    description: C(present) creates the DataLoad; C(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  wait:
    description: Wait until the DataLoad is Complete (only for I(policy=Once)).
  wait_timeout:
    default: 1800
  cached_percentage:
    description: After Complete, the cached percentage (0-100) the dataset must have, or the task fails.
    type: float
  cache_refresh_timeout:
    description:
      - Seconds after the DataLoad completed that the dataset's cached percentage has to reach I(cached_percentage).
      - Fluid's runtime controller refreshes a dataset's cache states when it reconciles, every 90 seconds when
        nothing else wakes it (C(FLUID_RUNTIME_RECONCILE_DURATION)); the default leaves room for one such round.
      - Counted from the C(Complete) condition's C(lastTransitionTime), so a wait split into slices by the action
        plugin is not extended; within I(wait_timeout).
    type: int
    default: 120
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Warm the ImageNet cache and require 95% cached
  fluidops.accel.fluid_dataload:
    name: imagenet-warmup
    dataset: imagenet
    targets:
      - {path: /imagenet/train, replicas: 1}
      - {path: /imagenet/validation, replicas: 1}
    load_metadata: true
    cached_percentage: 95
    wait_timeout: 3600
  register: warmup

- name: Reload new files every night
  fluidops.accel.fluid_dataload:
    name: imagenet-nightly
    dataset: imagenet
    policy: Cron
    schedule: "0 2 * * *"
"""

RETURN = r"""
phase:
  description: The DataLoad's phase when the module returned (Pending, Executing, Complete, Failed).
  returned: always
  type: str
  sample: Complete
duration:
  description: C(status.duration) as Fluid wrote it.
  returned: when the DataLoad has one
  type: str
  sample: 4m12s
seconds:
  description: Seconds the module waited.
  returned: always
  type: float
cached_bytes_before:
  description: The dataset's cached bytes before the wait.
  returned: always
  type: int
bytes_loaded:
  description: Cached bytes gained while waiting.
  returned: always
  type: int
bytes_per_second:
  description: I(bytes_loaded) over I(seconds); null when nothing was waited for.
  returned: always
  type: float
cached_percentage:
  description: The dataset's cached percentage at the end.
  returned: always
  type: float
timed_out:
  description: True when the wait ran out (only returned without failing when I(fail_on_timeout=false)).
  returned: always
  type: bool
conditions:
  description: The DataLoad's conditions.
  returned: always
  type: list
dataload:
  description: The DataLoad object as the API returned it (the one it would create, in check mode).
  returned: success
  type: dict
api_calls:
  description: API requests the module made.
  returned: always
  type: int
reconnects:
  description: Attempts to list again after a wait's watch connection dropped (a pause between refused ones); the wait then watches on.
  returned: always
  type: int
"""

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.dataload import execute_module
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module


def spec():
    return ModuleSpec.sliced_wait(1800, dict(
        name=dict(type="str", required=True),
        namespace=dict(type="str", default="default"),
        dataset=dict(type="str", required=True),
        targets=dict(type="list", elements="dict", default=[], options=dict(
            path=dict(type="str", required=True), replicas=dict(type="int", default=1))),
        load_metadata=dict(type="bool", default=False),
        tolerations=dict(type="list", elements="dict", default=[]),
        policy=dict(type="str", choices=["Once", "Cron", "OnEvent"], default="Once"),
        schedule=dict(type="str"),
        state=dict(type="str", choices=["present", "absent"], default="present"),
        cached_percentage=dict(type="float"),
        cache_refresh_timeout=dict(type="int", default=120),
    ), bounds=dict(cached_percentage=(0, 100), cache_refresh_timeout=(0, None, "seconds")),
        required_if=[("policy", "Cron", ("schedule",))])


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
