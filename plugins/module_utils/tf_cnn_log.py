# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Throughput and accuracy from tf_cnn_benchmarks output (branch cnn_tf_v1.14_compatible).

Lines read:
- ``<step>\\timages/sec: <ips> +/- <unc> (jitter = <j>)\\t<loss>`` (or ``images/sec: <ips>`` alone):
  the running mean since the first step, printed every ``--display_every`` steps by every rank;
- ``total images/sec: <n>`` at the end;
- ``Accuracy @ 1 = <a> Accuracy @ 5 = <b> [<n> examples]`` after evaluation;
- ``Batch size: <n> global`` in the header.
Each may carry mpirun's ``--tag-output`` prefix ``[<job>,<rank>]<stdout>:`` and a kubelet
timestamp (``kubectl logs --timestamps``). Under Horovod every rank prints the same step, so a
step is counted once: rank 0's value when ranks are tagged, else the first one printed. A line
the log cut off (interleaved ranks, the end of a log still being written) is not read.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_PREFIX = r"^(?:\d{4}-\d\d-\d\dT\S+\s+)?(?:\[(?P<job>\d+),(?P<rank>\d+)\]<std(?:out|err)>:)?\s*"
_STEP = re.compile(_PREFIX + r"(?P<step>\d+)\s+images/sec:\s*(?P<ips>\d+(?:\.\d+)?)"
                   r"(?:\s+\+/-\s+(?P<unc>\d+(?:\.\d+)?)\s+\(jitter = (?P<jitter>\d+(?:\.\d+)?)\)(?:\s+(?P<loss>\d+(?:\.\d+)?))?)?\s*$")
_TOTAL = re.compile(_PREFIX + r"total images/sec:\s*(?P<ips>\d+(?:\.\d+)?)\s*$")
_BATCH = re.compile(_PREFIX + r"Batch size:\s*(?P<batch>\d+)\s+global\s*$")
_ACCURACY = re.compile(_PREFIX + r"Accuracy @ 1 = (?P<top1>\d+(?:\.\d+)?)\s+Accuracy @ 5 = (?P<top5>\d+(?:\.\d+)?)"
                       r"(?:\s+\[(?P<examples>\d+) examples\])?\s*$")


def parse(text):
    """``{"steps": [{step, images_per_sec, ranks}], "total_images_per_sec", "accuracy_top1",
    "accuracy_top5", "eval_examples", "simulated"}`` from a launcher's log."""
    lines = text.split("\n")
    if lines and not text.endswith("\n"):
        lines = lines[:-1]  # cut off by the end of the log
    by_step = {}
    result = {"total_images_per_sec": None, "accuracy_top1": None, "accuracy_top5": None, "eval_examples": None,
              "global_batch": None, "simulated": "SIMULATED" in text}
    for line in lines:
        line = line.rstrip("\r")
        match = _STEP.match(line)
        if match:
            step, rank = int(match.group("step")), match.group("rank")
            entry = by_step.setdefault(step, {"step": step, "images_per_sec": None, "ranks": set(), "_rank": None})
            rank_number = int(rank) if rank is not None else None
            entry["ranks"].add(rank_number)
            # Rank 0's value wins; without tags, the first one printed.
            if entry["images_per_sec"] is None or (rank_number == 0 and entry["_rank"] != 0):
                entry["images_per_sec"], entry["_rank"] = float(match.group("ips")), rank_number
            continue
        match = _TOTAL.match(line)
        if match:
            if result["total_images_per_sec"] is None or match.group("rank") in (None, "0"):
                result["total_images_per_sec"] = float(match.group("ips"))
            continue
        match = _BATCH.match(line)
        if match:
            result["global_batch"] = int(match.group("batch"))
            continue
        match = _ACCURACY.match(line)
        if match:
            result["accuracy_top1"], result["accuracy_top5"] = float(match.group("top1")), float(match.group("top5"))
            result["eval_examples"] = int(match.group("examples")) if match.group("examples") else None
    result["steps"] = [{"step": e["step"], "images_per_sec": e["images_per_sec"], "ranks": len(e["ranks"])}
                       for _, e in sorted(by_step.items())]
    return result


def at_step(parsed, step):
    """Images/sec at ``step``, or at the last step printed before it; None before any."""
    value = None
    for entry in parsed["steps"]:
        if entry["step"] > step:
            break
        value = entry
    return value


def summary(text, step=1000):
    """What a benchmark reports from one run: the throughput at ``step`` and at the last step."""
    parsed = parse(text)
    chosen = at_step(parsed, step)
    last = parsed["steps"][-1] if parsed["steps"] else None
    return {
        "step": step,
        "images_per_sec_at_step": chosen["images_per_sec"] if chosen else None,
        "step_read": chosen["step"] if chosen else None,
        "last_step": last["step"] if last else None,
        "images_per_sec_at_last_step": last["images_per_sec"] if last else None,
        "total_images_per_sec": parsed["total_images_per_sec"],
        "accuracy_top1": parsed["accuracy_top1"],
        "accuracy_top5": parsed["accuracy_top5"],
        "steps_read": len(parsed["steps"]),
        # Images the run processed over its mean rate: the training time the log implies.
        "estimated_seconds": round(last["step"] * parsed["global_batch"] / parsed["total_images_per_sec"], 1)
        if last and parsed["global_batch"] and parsed["total_images_per_sec"] else None,
        "simulated": parsed["simulated"],
    }
