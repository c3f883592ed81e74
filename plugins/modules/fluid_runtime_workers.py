#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: fluid_runtime_workers
short_description: Scale the cache workers of Fluid datasets' runtimes and wait until their caches count them
version_added: 1.1.0
author: fluidops contributors (!UNKNOWN)
description:
  - Sets the C(spec.replicas) of each dataset's runtime (the AlluxioRuntime or JindoRuntime of the dataset's name, found
    as M(fluidops.accel.fluid_dataset_info) finds it) to I(replicas) with a merge patch, when it differs; a second
    run with the same I(replicas) changes nothing.
  - Then waits (bounded by I(wait_timeout)) until, for every dataset, the runtime's C(status.workerNumberReady)
    equals its C(spec.replicas) and, for an AlluxioRuntime, the dataset's cache capacity
    (C(status.cacheStates.cacheCapacity)) is that of so many workers - C(spec.replicas) times what one worker
    holds, the sum over C(spec.tieredstore.levels) of each level's C(quotaList) or else its C(quota), as Fluid
    gives them to each worker. Sizes are compared as Fluid writes them, with two decimals of a binary unit.
  - Fluid 1.0.8 reads an AlluxioRuntime's cache capacity from the Alluxio master's C(fsadmin report capacity),
    which counts the workers registered with it - it grows when a new worker registers, and shrinks only once
    the master gives up a stopped worker, after C(alluxio.master.worker.timeout) (5min by default). A shrink
    therefore waits at least that long after the worker stopped.
  - A dataset that does not exist, has no runtime, or whose runtime runs no cache workers (a ThinRuntime) fails
    the task before any runtime changes.
  - On a timeout the task fails naming each dataset not there yet, its Ready workers and cache capacity against
    those awaited, its runtime's pods that are not ready and the recent events of the dataset and its runtime.
  - The action plugin of the same name prints each dataset's Ready workers and cache capacity every
    I(progress_interval) seconds while it waits.
  - In check mode nothing is patched and nothing waits; the task reports the runtimes it would patch.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - fluidops.accel.sliced_wait
options:
  name:
    description:
      - Names of the datasets; each dataset's runtime has the dataset's name.
      - A name that does not exist fails the task, naming the datasets that do.
    type: list
    elements: str
    required: true
    aliases: [datasets]
  namespace:
    description: Namespace of the datasets and their runtimes.
    type: str
    default: default
  replicas:
    description:
      - The cache workers each runtime should run (at least 1). Omit to leave the runtimes as they are and only wait.
    type: int
  wait:
    description: Wait until every runtime's workers are Ready and each AlluxioRuntime's dataset counts their capacity.
  wait_timeout:
    default: 900
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
notes:
  - An AlluxioRuntime without C(spec.tieredstore.levels) has no capacity foreseen; its wait is on the Ready workers alone,
    as is a JindoRuntime's.
"""

EXAMPLES = r"""
- name: Grow ImageNet's cache to the new GPU node, and wait until it counts
  fluidops.accel.fluid_runtime_workers:
    name: [imagenet]
    replicas: 5
  register: scaled

- name: Say what changed
  ansible.builtin.debug:
    msg: "{{ item.name }}: {{ item.previous_replicas }} -> {{ item.replicas }} workers, cache {{ item.cache_capacity }}"
  loop: "{{ scaled.runtimes }}"

- name: Shrink two datasets' caches; Alluxio's master forgets a stopped worker after 5 minutes
  fluidops.accel.fluid_runtime_workers:
    datasets: [imagenet, coco]
    namespace: training
    replicas: 3
    wait_timeout: 900
    progress_interval: 60
"""

RETURN = r"""
runtimes:
  description: One entry per dataset, in the order asked for, as the wait (or the patch, without one) left it.
  returned: when every dataset has a runtime to scale
  type: list
  elements: dict
  contains:
    name: {description: The dataset's name and its runtime's., type: str, sample: imagenet}
    namespace: {description: Their namespace., type: str, sample: default}
    kind: {description: The runtime's kind., type: str, sample: AlluxioRuntime}
    replicas:
      description: The runtime's C(spec.replicas) now (in check mode, what it would be).
      type: int
      sample: 2
    previous_replicas: {description: Its C(spec.replicas) before the task., type: int, sample: 1}
    workers_ready: {description: The runtime's C(status.workerNumberReady)., type: int, sample: 2}
    cache_capacity:
      description: The dataset's C(status.cacheStates.cacheCapacity) as Fluid wrote it; null before Fluid reports one.
      type: str
      sample: 64.00MiB
    expected_cache_capacity:
      description: The cache capacity awaited (AlluxioRuntime only, else null), as Fluid writes sizes.
      type: str
      sample: 64.00MiB
patched:
  description: The datasets whose runtime's C(spec.replicas) was patched (in check mode, would be).
  returned: when every dataset has a runtime to scale
  type: list
  elements: str
  sample: [imagenet]
seconds:
  description: Seconds the module waited (0 without I(wait) or in check mode).
  returned: when every dataset has a runtime to scale
  type: float
timed_out:
  description: True when the wait ran out (only returned without failing when I(fail_on_timeout=false)).
  returned: when every dataset has a runtime to scale
  type: bool
reasons:
  description: On a timeout, why each dataset is not there yet - phase, conditions, events of the dataset and its runtime, pods not ready.
  returned: failure
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

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.workers import execute_module
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module


def spec():
    return ModuleSpec.sliced_wait(900, dict(
        name=dict(type="list", elements="str", required=True, aliases=["datasets"]),
        namespace=dict(type="str", default="default"),
        replicas=dict(type="int"),
    ), bounds=dict(replicas=(1, None, "cache workers")),
        check=lambda params: [] if params["name"] else ["name=[] names no dataset: give the datasets whose cache workers to scale"])


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
