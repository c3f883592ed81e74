"""The local cluster's SIMULATED launcher log (tools/localcluster/simulator.py) read back by the
project's reader: per-rank lines that sum to seed 003's job-wide figures, every rank counted once
even where mpirun split a line, with and without --tag-output."""

import os
import re
import sys
import types

import pytest

from ansible_collections.fluidops.accel.plugins.module_utils.tf_cnn_log import parse, summary

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools", "localcluster"))
import simulator  # noqa: E402  pylint: disable=wrong-import-position


def launcher(command):
    container = types.SimpleNamespace(command=command, args=None)
    return types.SimpleNamespace(spec=types.SimpleNamespace(containers=[container]))


def job(workers, uid="0b5c"):
    return {"metadata": {"uid": uid, "name": "resnet50"},
            "spec": {"slotsPerWorker": 8, "mpiReplicaSpecs": {"Worker": {"replicas": workers}}}}


@pytest.mark.parametrize("workers, fraction, step_1000, tagged", [
    (4, 1.0, 20859.5, True), (4, 0.0, 8889.6, True), (4, None, 3136.0, False), (1, None, 2400.8, False)])
def test_the_ranks_sum_to_the_seeds_job_wide_figures(workers, fraction, step_1000, tagged):
    command = ["mpirun", "--tag-output", "python"] if tagged else ["./launch-example.sh", str(workers), "8"]
    lines, seconds = simulator.launcher_output(job(workers), fraction, launcher(command))
    text = "\n".join(lines) + "\n"
    result = summary(text, 1000)
    assert result["ranks"] == workers * 8 and result["tagged"] is tagged
    assert result["ranks_read_at_step"] == workers * 8
    # Each rank's line carries about 1/ranks of the job's rate; their sum is the seeds' figure.
    per_rank = [float(rate) for rate in re.findall(r"(?:^|<stdout>:)1000\timages/sec: ([0-9.]+) ", text, re.M)]
    assert per_rank and max(per_rank) < step_1000 / (workers * 8) * 1.05
    assert abs(result["images_per_sec_at_step"] - step_1000) / step_1000 < 0.02
    assert result["simulated"] and result["accuracy_top5"] is not None
    assert seconds == pytest.approx(result["last_step"] * 256 * workers * 8 / result["total_images_per_sec"], rel=0.02)


@pytest.mark.parametrize("uid", ["split", "u0", "u1", "u2", "u3"])
def test_tagged_output_has_split_lines_that_the_reader_joins(uid):
    lines, _unused = simulator.launcher_output(job(4, uid=uid), None, launcher(["mpirun", "--tag-output"]))
    spliced = [line for line in lines if line.count("<stdout>:") == 2]
    assert spliced, "no line was split across chunks"
    text = "\n".join(lines)
    assert {step["ranks_read"] for step in parse(text)["steps"]} == {32}
