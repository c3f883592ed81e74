#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: benchmark_report
short_description: Write a training benchmark as a Markdown table, JSON and a PNG bar chart
version_added: 1.0.0
author: fluidops contributors (!UNKNOWN)
description:
  - Takes the runs of a benchmark (baseline, cache cold, cache warm), each the C(training_result) of the training
    role with a I(label), and writes C(<name>.md) (a table shaped like seed 003's - training time, speed at the
    chosen step and at the last step, steps, Accuracy @ 5 - with the changes against the first run), C(<name>.json)
    and C(<name>.png) (images/sec per run) into I(dest).
  - Runs whose launcher log says SIMULATED make the report say so.
  - Rewrites a file only when its content changes; in check mode writes nothing.
options:
  dest:
    description: Directory of the report files (created if missing).
    type: path
    required: true
  name:
    description: Base name of the three files.
    type: str
    default: benchmark
  title:
    description: Title of the report.
    type: str
    default: Training benchmark
  step:
    description: The step whose images/sec the runs report (the seeds use step 1000).
    type: int
    default: 1000
  runs:
    description: The runs, first the baseline; each has C(label), C(duration_seconds) and C(throughput).
    type: list
    elements: dict
    required: true
requirements:
  - pillow (for the PNG)
"""

EXAMPLES = r"""
- name: Write the report
  fluidops.accel.benchmark_report:
    dest: reports
    name: resnet50-4x8
    runs: "{{ benchmark_runs }}"
"""

RETURN = r"""
files:
  description: The three files written (or that would be).
  returned: always
  type: list
  elements: str
markdown:
  description: The Markdown report.
  returned: always
  type: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.fluidops.accel.plugins.module_utils.common.files import update
from ansible_collections.fluidops.accel.plugins.module_utils.training.benchmark_report import chart, document, markdown


def main():
    module = AnsibleModule(argument_spec=dict(
        dest=dict(type="path", required=True), name=dict(type="str", default="benchmark"),
        title=dict(type="str", default="Training benchmark"), step=dict(type="int", default=1000),
        runs=dict(type="list", elements="dict", required=True)), supports_check_mode=True)
    params = module.params
    runs = params["runs"]
    unlabelled = [index for index, run in enumerate(runs) if not run.get("label")]
    if not runs or unlabelled:
        module.fail_json(msg="runs must list at least one run, each with a label (runs without one: %s)" % unlabelled)
    text = markdown(params["title"], runs, params["step"])
    contents = {".md": text.encode("utf-8"), ".json": document(params["title"], runs, params["step"]).encode("utf-8")}
    try:
        contents[".png"] = chart(params["title"], runs, params["step"])
    except ImportError:
        module.fail_json(msg="the PNG chart needs Pillow on the controller (pip install pillow)")
    if not module.check_mode:
        os.makedirs(params["dest"], exist_ok=True)
    files = [os.path.join(params["dest"], params["name"] + suffix) for suffix in (".md", ".json", ".png")]
    changed = False
    for path in files:
        changed = update(module, path, contents[os.path.splitext(path)[1]])[0] or changed
    module.exit_json(changed=changed, files=files, markdown=text)


if __name__ == "__main__":
    main()
