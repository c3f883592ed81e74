# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters for the training job: the MPIJob manifest, Arena's arguments, DATA_DIR, whether the
cluster serves the launcher's job, and the tf_cnn_benchmarks log reader."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools

from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError
from ansible_collections.fluidops.accel.plugins.module_utils.training import jobs as training
from ansible_collections.fluidops.accel.plugins.module_utils.training.tf_cnn_log import summary
from ansible_collections.fluidops.accel.plugins.plugin_utils.schema_check import problems as schema_problems


def _checked(function):
    @functools.wraps(function)  # keeps the name and the signature (tests/unit/test_docs.py reads it)
    def wrapper(*args):
        try:
            return function(*args)
        except InputError as exc:
            raise AnsibleFilterError(str(exc)) from exc
    return wrapper


def training_job(params, gpu_nodes):
    """``{"mpijob": manifest, "arena_args": [...], "data_dir": ...}`` from the role's variables, checked."""
    params = dict(params)
    training.check(params, int(gpu_nodes))
    if not params.get("data_dir"):
        params["data_dir"] = training.data_dir(params["claim"], params.get("datasets"), params.get("nfs_volumes"), params["mount_path"])
    job = training.mpijob_manifest(params)
    found = schema_problems([job])
    if found:
        raise InputError("The training job (training_* variables) would be refused: %s" % "; ".join(found))
    return {"mpijob": job, "arena_args": training.arena_submit_args(params), "data_dir": params["data_dir"]}


def training_launcher_problems(launcher, mpijob_crd=None):
    """Why the cluster cannot run the job the launcher creates (its CRD mpijobs.kubeflow.org, or None)."""
    return training.launcher_problems(launcher, mpijob_crd)


def tf_cnn_benchmarks_log(text, step=1000):
    """Images/sec at ``step`` and at the last step, total images/sec and accuracy, from a log."""
    return summary(text or "", int(step))


class FilterModule(object):
    def filters(self):
        return {"training_job": _checked(training_job), "training_launcher_problems": training_launcher_problems,
                "tf_cnn_benchmarks_log": tf_cnn_benchmarks_log}
