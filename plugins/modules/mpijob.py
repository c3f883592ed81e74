#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: mpijob
short_description: Run a Kubeflow MPIJob (v2beta1) to the end and read its tf_cnn_benchmarks throughput
version_added: 1.0.0
author: fluidops contributors (!UNKNOWN)
description:
  - Creates the MPIJob in I(definition) (C(kubeflow.org/v2beta1), mpi-operator), idempotent by name - a job of
    that name created from the same definition is left alone and read; one from another definition fails the
    task rather than being replaced under a running training.
  - Waits (bounded by I(wait_timeout)) until the job's C(Succeeded) or C(Failed) condition is true, following a
    watch, then reads the launcher's log and returns the state, the duration and the throughput -
    images/sec at I(log_step) and at the last step, C(total images/sec), Accuracy @ 1/5.
  - A Failed job fails the task with its conditions and the launcher's last log lines.
  - A worker pod that failed (its command could not start, or ended) fails the task at once, naming the pod, its
    container's reason and message - mpi-operator v2beta1 does not replace it, so the job would otherwise wait
    until I(wait_timeout) - and says what the workers need - an SSH server, which the launcher's mpirun reaches.
  - What holds a pod that has not started (an image that cannot be pulled, a pod no node can take) is returned
    as I(waiting), shown in the progress lines and named when the wait times out.
  - The action plugin of the same name prints the job's state and the last step read every I(progress_interval) seconds.
  - With I(state=absent) deletes the job (its pods go with it).
  - In check mode nothing is created and nothing waits.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - fluidops.accel.sliced_wait
options:
  definition:
    description: The MPIJob manifest (apiVersion, kind, metadata.name and namespace, spec).
    type: dict
    required: true
  state:
    description: C(present) runs the job; C(absent) deletes it.
    type: str
    choices: [present, absent]
    default: present
  wait:
    description: Wait until the job Succeeded or Failed.
  wait_timeout:
    default: 14400
  log_step:
    description: The step whose images/sec is reported as C(images_per_sec_at_step) (the seeds report step 1000).
    type: int
    default: 1000
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
notes:
  - Arena, mpi-operator v2beta1 and the training operator's v1 MPIJob share the CRD name C(mpijobs.kubeflow.org);
    this module drives the v2beta1 one. Clusters running Arena's operator use the training role's C(arena) launcher.
"""

EXAMPLES = r"""
- name: Train ResNet-50 on 4 x 8 GPUs and read its throughput
  fluidops.accel.mpijob:
    definition: "{{ lookup('ansible.builtin.template', 'mpijob.yml.j2') | from_yaml }}"
    wait_timeout: 14400
    log_step: 1000
  register: training

- name: Remove the job and its pods
  fluidops.accel.mpijob:
    definition: "{{ training.mpijob }}"
    state: absent
"""

RETURN = r"""
state:
  description: Succeeded, Failed, Running or Created (the last true condition), empty before the operator sets one.
  returned: always
  type: str
duration_seconds:
  description: From the job's startTime to its completionTime (or to now while it runs).
  returned: when the job started
  type: float
throughput:
  description:
    - The job's throughput read from the launcher's log, job-wide - images_per_sec_at_step and images_per_sec_at_last_step
      are the sums of the ranks' rates at that step (tf_cnn_benchmarks prints each rank's own rate under Horovod),
      with step_read, last_step, ranks (the job's ranks), ranks_read_at_step and ranks_read_at_last_step (fewer when
      lines were cut off; the figure is then the mean of the ranks read times ranks), tagged (mpirun --tag-output).
    - total_images_per_sec (the median of the ranks' job-wide totals), accuracy_top1, accuracy_top5, steps_read,
      estimated_seconds, simulated (the log says it was simulated) and simulated_note (its first line saying what was),
      read_mib_per_sec (each rank's read rate, where the ranks print it, as the local cluster's training image does).
  returned: when the launcher's log could be read
  type: dict
launcher:
  description: The launcher pod's name.
  returned: when it exists
  type: str
conditions:
  description: The job's conditions.
  returned: always
  type: list
waiting:
  description: For each of the job's pods held before it starts, its name and what holds it - its containers'
    waiting reasons but ContainerCreating and PodInitializing (with the kubelet's message), the scheduler's reason.
  returned: when the job was created or read
  type: list
  elements: str
timed_out:
  description: True when the wait ran out (only returned without failing when I(fail_on_timeout=false)).
  returned: always
  type: bool
api_calls:
  description: API requests the module made.
  returned: always
  type: int
reconnects:
  description: Attempts to list again after a wait's watch connection dropped (a pause between refused ones); the wait then watches on.
  returned: always
  type: int
"""

from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module
from ansible_collections.fluidops.accel.plugins.module_utils.training.mpijob import execute_module


def spec():
    return ModuleSpec.sliced_wait(14400, dict(
        definition=dict(type="dict", required=True),
        state=dict(type="str", choices=["present", "absent"], default="present"),
        log_step=dict(type="int", default=1000),
    ))


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
