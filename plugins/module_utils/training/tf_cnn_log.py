# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The job's throughput and accuracy from tf_cnn_benchmarks output under Horovod and mpirun.

The rules relied on (tensorflow/benchmarks scripts/tf_cnn_benchmarks/benchmark_cnn.py, branch
cnn_tf_v1.14_compatible; master prints the same):

- Every rank prints everything: the header, the step lines and the final block (no ``log_fn``
  call is behind a rank check; ``is_chief`` only guards summaries and checkpoints).
- A step line is ``'%i\\t%s\\t%.*f' % (step + 1, 'images/sec: %.1f +/- %.1f (jitter = %.1f)', 3,
  loss)``, plus ``'\\t%.3f\\t%.3f'`` (top-1, top-5) with ``--print_training_accuracy``. It is
  printed at step 1 and every ``--display_every`` steps.
- Its images/sec is the rank's own: ``benchmark_one_step`` gets ``batch_size * num_workers``
  only in single-session mode (``distributed_all_reduce``); under Horovod it gets the local
  batch, so the job's rate at a step is the sum of the ranks' rates at that step.
- ``total images/sec: %.2f`` (between two lines of 64 dashes) is already job-wide: each rank
  prints ``num_workers * local_step * batch_size / elapsed_time`` with ``num_workers =
  hvd.size()``. The ranks' values differ slightly; the median is reported, never their sum.
- ``Batch size:  %s global`` is ``--batch_size * hvd.size()``; ``Devices:`` lists one
  ``horovod/gpu:<i>`` per rank.
- ``Accuracy @ 1 = %.4f Accuracy @ 5 = %.4f [%d examples]`` after evaluation (each rank's own).
- The header's ``Mode:`` line says what follows. A separate ``--eval`` run prints ``Mode:
  evaluation``, ``'%i\t%.1f examples/sec'`` lines and a per-process ``total images/sec``: only
  what a rank prints in training mode counts as training throughput.

mpirun (OpenMPI 4, orte/mca/iof/base/iof_base_output.c): with ``--tag-output`` every line a rank
writes starts with ``[<job>,<rank>]<stdout>:`` (OpenMPI 5 adds a space). Output reaches mpirun
in chunks of up to 4096 bytes; a line split across two chunks gets a tag on each fragment and
no newline after the first, so another rank's output can be spliced onto the same physical line.
Tagged output is therefore read by splitting on the tags and joining each rank's fragments.
Without ``--tag-output`` nothing says which rank wrote a line: each step line counts as one rank.

A line counts only when it has the exact shape printf gives it (fixed decimals included), so a
line the log cut off is never read, whether or not the log ends with a newline (Ansible's
``command`` strips the final newline; ``kubectl logs`` keeps it). A step where some ranks' lines
are missing is estimated as the mean of the ranks read times the job's ranks, and says so in
``ranks``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# kubectl logs --timestamps / a kubelet's CRI log line: "<RFC 3339 time> " at a physical line start.
_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT[0-9:.]+(?:Z|[+-]\d\d:\d\d) (?:std(?:out|err) [FP] )?")
_TAG = re.compile(r"\[(?P<job>\d+),(?P<rank>\d+)\]<(?P<stream>stdout|stderr|stddiag)>:")
_STEP = re.compile(r"^(?P<step>\d+)\timages/sec: (?P<ips>\d+\.\d) \+/- \d+\.\d \(jitter = \d+\.\d\)\t-?(?:\d+\.\d{3}|nan|inf)"
                   r"(?:\t\d+\.\d{3}\t\d+\.\d{3})?$")
_TOTAL = re.compile(r"^total images/sec: (?P<ips>\d+\.\d\d)$")
_BATCH = re.compile(r"^Batch size:\s+(?P<batch>\d+) global$")
_DEVICES = re.compile(r"^Devices:\s+\[(?P<devices>'[^\]]*')\]$")
_MODE = re.compile(r"^Mode:\s+(?P<mode>.+)$")
# Not tf_cnn_benchmarks': the training image's ranks end with what they read and how fast
# (tools/localcluster/images/training), the benchmark's read rate per rank.
_INPUT = re.compile(r"^Input: (?P<images>\d+) images, (?P<mib>\d+\.\d) MiB read from (?P<files>\d+) files at (?P<rate>\d+\.\d) MiB/s$")
_ACCURACY = re.compile(r"^Accuracy @ 1 = (?P<top1>\d\.\d{4}) Accuracy @ 5 = (?P<top5>\d\.\d{4}) \[(?P<examples>\d+) examples\]$")


def _lines(text):
    """``(rank or None, line)`` for every line, tagged fragments joined per rank; cut lines too
    (the caller's shape check drops them)."""
    physical = text.split("\n")
    pending = {}  # rank -> the start of a line split across chunks
    for number, raw in enumerate(physical):
        ended = number < len(physical) - 1  # the last piece has no newline after it
        raw = _TIMESTAMP.sub("", raw.rstrip("\r"), count=1)
        tags = list(_TAG.finditer(raw))
        if not tags:
            if raw:
                yield None, raw
            continue
        if tags[0].start() > 0:  # untagged text before the first tag: another writer's fragment
            yield None, raw[:tags[0].start()]
        for index, tag in enumerate(tags):
            last = index == len(tags) - 1
            piece = raw[tag.end():tags[index + 1].start() if not last else len(raw)]
            if tag.group("stream") != "stdout":
                continue
            rank = int(tag.group("rank"))
            if rank in pending:  # the rest of a split line, byte for byte
                joined = pending.pop(rank) + piece
            else:  # a line's start: OpenMPI 5 puts a space after the tag
                joined = piece[1:] if piece.startswith(" ") else piece
            if last and ended:
                yield rank, joined
            else:  # cut by another rank's chunk, or by the end of the log: the rest may follow
                pending[rank] = joined
    for rank, rest in sorted(pending.items()):
        yield rank, rest


def parse(text):
    """``{"steps": [{step, images_per_sec, ranks, ranks_read}], "ranks", "tagged",
    "total_images_per_sec", "accuracy_top1", "accuracy_top5", "eval_examples", "global_batch",
    "simulated", "simulated_note", "reads"}``: the job's images/sec at each printed step; simulated_note is
    the log's first line that says what was SIMULATED; reads, each rank's MiB/s read (in rank order
    when tagged), where the ranks say it."""
    by_step = {}  # step -> {rank key: images/sec}
    reads = []  # (rank key, MiB/s)
    totals, accuracy, batches, devices, untagged_index, note = [], None, [], 0, 0, None
    tagged, modes = False, {}  # rank (None without tags) -> the mode its last header gave
    for rank, line in _lines(text or ""):
        # Whole-shape matching makes the newline irrelevant: a cut line never has the shape.
        tagged = tagged or rank is not None
        if note is None and "SIMULATED" in line:
            note = line.strip()
        match = _MODE.match(line)
        if match:
            modes[rank] = match.group("mode")
            continue
        training = "training" in modes.get(rank, "training")
        match = _STEP.match(line) if training else None
        if match:
            step = int(match.group("step"))
            if rank is None:  # no tags: each line is another rank's
                untagged_index += 1
                key = ("line", untagged_index)
            else:
                key = rank
            by_step.setdefault(step, {})[key] = float(match.group("ips"))
            continue
        match = _TOTAL.match(line)
        if match:
            if training:
                totals.append(float(match.group("ips")))
            continue
        match = _BATCH.match(line)
        if match and training:
            batches.append(int(match.group("batch")))
            continue
        match = _DEVICES.match(line)
        if match:
            devices = max(devices, len(match.group("devices").split(",")))
            continue
        match = _INPUT.match(line)
        if match:
            reads.append((len(reads) if rank is None else rank, float(match.group("rate"))))
            continue
        match = _ACCURACY.match(line)
        if match and (accuracy is None or rank == 0):
            accuracy = (float(match.group("top1")), float(match.group("top5")), int(match.group("examples")))
    ranks = _job_ranks(by_step, devices, tagged)
    steps = []
    for step, rates in sorted(by_step.items()):
        read = len(rates)
        job_rate = sum(rates.values()) if read >= ranks else sum(rates.values()) / read * ranks
        steps.append({"step": step, "images_per_sec": round(job_rate, 1), "ranks": ranks, "ranks_read": read})
    return {
        "steps": steps,
        "ranks": ranks,
        "tagged": tagged,
        "total_images_per_sec": _median(totals),
        "accuracy_top1": accuracy[0] if accuracy else None,
        "accuracy_top5": accuracy[1] if accuracy else None,
        "eval_examples": accuracy[2] if accuracy else None,
        "global_batch": max(batches) if batches else None,
        "simulated": "SIMULATED" in (text or ""),
        "simulated_note": note,
        "reads": [rate for _unused, rate in sorted(reads)],
    }


def _job_ranks(by_step, devices, tagged):
    """The job's ranks: the tagged ranks seen, else the header's device list, else the most
    step lines any one step has."""
    if tagged:
        seen = set()
        for rates in by_step.values():
            seen.update(rates)
        return max(len(seen), devices) if seen else devices
    return max([devices] + [len(rates) for rates in by_step.values()])


def _median(values):
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else round((ordered[middle - 1] + ordered[middle]) / 2.0, 2)


def at_step(parsed, step):
    """The entry of ``step``, or of the last step printed before it; None before any."""
    value = None
    for entry in parsed["steps"]:
        if entry["step"] > step:
            break
        value = entry
    return value


def summary(text, step=1000):
    """What a benchmark reports from one run, job-wide: images/sec at ``step`` and at the last step."""
    parsed = parse(text)
    chosen = at_step(parsed, step)
    last = parsed["steps"][-1] if parsed["steps"] else None
    return {
        "step": step,
        "images_per_sec_at_step": chosen["images_per_sec"] if chosen else None,
        "step_read": chosen["step"] if chosen else None,
        "ranks_read_at_step": chosen["ranks_read"] if chosen else None,
        "last_step": last["step"] if last else None,
        "images_per_sec_at_last_step": last["images_per_sec"] if last else None,
        "ranks_read_at_last_step": last["ranks_read"] if last else None,
        "ranks": parsed["ranks"],
        "tagged": parsed["tagged"],
        "total_images_per_sec": parsed["total_images_per_sec"],
        "accuracy_top1": parsed["accuracy_top1"],
        "accuracy_top5": parsed["accuracy_top5"],
        "steps_read": len(parsed["steps"]),
        # Images the run processed over its job-wide rate: the training time the log implies.
        "estimated_seconds": round(last["step"] * parsed["global_batch"] / parsed["total_images_per_sec"], 1)
        if last and parsed["global_batch"] and parsed["total_images_per_sec"] else None,
        "simulated": parsed["simulated"],
        "simulated_note": parsed["simulated_note"],
        "read_mib_per_sec": parsed["reads"],
    }
