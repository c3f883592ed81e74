# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark report: the same runs as a Markdown table shaped like seed 003's, as JSON and
as a PNG bar chart.

A run is what the training role leaves in ``training_result`` plus a ``label`` (nfs,
fluid (cold), fluid (warm)): ``duration_seconds`` and ``throughput`` (images/sec at the chosen
step and the last one, accuracy). Runs whose log says SIMULATED are reported as simulated.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import json


def hms(seconds):
    """Seconds as the seeds write training time: ``2h15m59s``."""
    if seconds is None:
        return "-"
    seconds = int(round(float(seconds)))
    return "%dh%dm%ds" % (seconds // 3600, seconds % 3600 // 60, seconds % 60)


def _number(value, digits=1):
    return "-" if value is None else ("%.*f" % (digits, value)).rstrip("0").rstrip(".") if digits else str(value)


def rows(runs, step):
    """The seed's rows: training time, speed at the step and at the last step, steps, Accuracy @ 5;
    and each rank's read rate where the log gives it."""
    throughput = [run.get("throughput") or {} for run in runs]
    return [
        ["Training time"] + [hms(run.get("duration_seconds")) for run in runs],
        ["Training time from the log (steps x batch / total images/sec)"] + [hms(t.get("estimated_seconds")) for t in throughput],
        ["Speed at the %d step(images/second)" % step] + [_number(t.get("images_per_sec_at_step")) for t in throughput],
        ["Speed at the last step(images/second)"] + [_number(t.get("images_per_sec_at_last_step")) for t in throughput],
        ["steps"] + [_number(t.get("last_step"), 0) for t in throughput],
        ["Accuracy @ 5"] + [_number(t.get("accuracy_top5"), 4) for t in throughput],
        ["Read per rank (MiB/s)"] + [", ".join(_number(rate) for rate in t.get("read_mib_per_sec") or []) or "-"
                                     for t in throughput],
    ]


def simulated(runs):
    return any((run.get("throughput") or {}).get("simulated") for run in runs)


def markdown(title, runs, step):
    lines = ["# %s" % title, ""]
    if simulated(runs):
        # What was simulated, in each log's own words (the program that wrote it knows).
        lines += ["SIMULATED: no GPU ran. Each run's log says what stood in for it:", ""]
        lines += ["- %s: %s" % (run["label"], (run.get("throughput") or {}).get("simulated_note") or "SIMULATED")
                  for run in runs if (run.get("throughput") or {}).get("simulated")] + [""]
    lines += ["Speeds are job-wide: the sum of the ranks' images/sec at that step (tf_cnn_benchmarks prints each rank's own "
              "rate under Horovod), as in the seeds' tables.", ""]
    lines += ["| | %s |" % " | ".join(run["label"] for run in runs), "|---|" + "---|" * len(runs)]
    lines += ["| %s |" % " | ".join(row) for row in rows(runs, step)]
    baseline = runs[0]
    base_time = baseline.get("duration_seconds")
    base_speed = (baseline.get("throughput") or {}).get("images_per_sec_at_step")
    lines += ["", "Compared with %s:" % baseline["label"], ""]
    for run in runs[1:]:
        speed = (run.get("throughput") or {}).get("images_per_sec_at_step")
        parts = []
        if base_time and run.get("duration_seconds") is not None:
            parts.append("training time %+.0f%%" % (100.0 * (run["duration_seconds"] - base_time) / base_time))
        base_estimate = (baseline.get("throughput") or {}).get("estimated_seconds")
        estimate = (run.get("throughput") or {}).get("estimated_seconds")
        if base_estimate and estimate:
            parts.append("training time from the log %+.0f%%" % (100.0 * (estimate - base_estimate) / base_estimate))
        if base_speed and speed:
            parts.append("speed at step %d x%.2f" % (step, speed / base_speed))
        lines.append("- %s: %s" % (run["label"], ", ".join(parts) or "no comparable numbers"))
    return "\n".join(lines) + "\n"


def document(title, runs, step):
    return json.dumps({"title": title, "step": step, "simulated": simulated(runs), "runs": [
        {"label": run["label"], "name": run.get("name"), "claim": run.get("claim"), "data_dir": run.get("data_dir"),
         "workers": run.get("workers"), "gpus_per_worker": run.get("gpus_per_worker"), "state": run.get("state"),
         "duration_seconds": run.get("duration_seconds"), "training_time": hms(run.get("duration_seconds")),
         "throughput": run.get("throughput")} for run in runs]}, indent=2, sort_keys=True) + "\n"


def chart(title, runs, step):
    """A PNG: grouped bars of images/sec at the step and at the last step for each run."""
    from PIL import Image, ImageDraw  # imported here: only the chart needs Pillow

    width, height, left, bottom, top = 900, 520, 90, 90, 70
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((left, 20), title + (" (SIMULATED)" if simulated(runs) else ""), fill="black")
    draw.text((left, 40), "images/sec at step %d (dark) and at the last step (light)" % step, fill="black")
    values = [((run.get("throughput") or {}).get("images_per_sec_at_step") or 0.0,
               (run.get("throughput") or {}).get("images_per_sec_at_last_step") or 0.0) for run in runs]
    peak = max([v for pair in values for v in pair] + [1.0])
    plot_height = height - bottom - top
    draw.line([(left, top), (left, height - bottom), (width - 20, height - bottom)], fill="black")
    for tick in range(0, 5):
        y = height - bottom - plot_height * tick / 4.0
        draw.line([(left - 5, y), (left, y)], fill="black")
        draw.text((10, y - 6), "%.0f" % (peak * tick / 4.0), fill="black")
    group = (width - left - 40) / float(max(1, len(runs)))
    for index, (run, pair) in enumerate(zip(runs, values)):
        x = left + 20 + index * group
        for column, (value, colour) in enumerate(zip(pair, ("#1f4e79", "#8fb3d9"))):
            x0 = x + column * (group * 0.35)
            y0 = height - bottom - plot_height * value / peak
            draw.rectangle([x0, y0, x0 + group * 0.33, height - bottom], fill=colour, outline="black")
            draw.text((x0, y0 - 14), "%.0f" % value, fill="black")
        draw.text((x, height - bottom + 10), run["label"], fill="black")
        draw.text((x, height - bottom + 26), hms(run.get("duration_seconds")), fill="black")
    output = io.BytesIO()
    image.save(output, format="PNG", optimize=False)
    return output.getvalue()
