#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: render_files
short_description: Write a set of text files into one directory, each only when it changes
version_added: 1.1.0
author: fluidops contributors (!UNKNOWN)
description:
  - Writes each of I(files) into I(dest), created if missing, as M(ansible.builtin.copy) with C(content) writes one
    file - through a temporary file moved into place, only when the content differs, then the mode set when it
    differs - in one module run for all of them, where a loop of M(ansible.builtin.copy) runs two modules per file.
  - Render mode (C(playbooks/render.yml)) writes its manifests and Helm values with it.
  - In check mode writes nothing and reports what would change; with C(--diff), each changed file's before and after.
options:
  dest:
    description: The directory the files go into.
    type: path
    required: true
  files:
    description: The files, in the order they are written.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: The file's name in I(dest), without a directory.
        type: str
        required: true
      content:
        description: The file's text.
        type: str
        required: true
  mode:
    description: The files' permissions, as M(ansible.builtin.file) takes them.
    type: raw
    default: "0644"
"""

EXAMPLES = r"""
- name: Write a release's objects, one file each
  fluidops.accel.render_files:
    dest: /tmp/rendered
    files: "{{ objects | map('fluidops.accel.redact_secrets') | map('fluidops.accel.manifest_file') | list }}"
"""

RETURN = r"""
files:
  description: The path of every file of I(files), written or not.
  returned: always
  type: list
  elements: str
changed_files:
  description: The paths of the files that were (in check mode, would be) written or had their mode changed.
  returned: always
  type: list
  elements: str
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes

from ansible_collections.fluidops.accel.plugins.module_utils.common.files import update


def main():
    module = AnsibleModule(argument_spec=dict(
        dest=dict(type="path", required=True),
        files=dict(type="list", elements="dict", required=True, options=dict(
            name=dict(type="str", required=True), content=dict(type="str", required=True))),
        mode=dict(type="raw", default="0644")), supports_check_mode=True)
    dest, mode = module.params["dest"], module.params["mode"]
    names = [item["name"] for item in module.params["files"]]
    bad = [name for name in names if not name or os.path.basename(name) != name or name in (".", "..")]
    if bad:
        module.fail_json(msg="files: each name is a file name in dest (%s), without a directory; not: %s" % (dest, ", ".join(map(repr, bad))))
    duplicated = sorted(set(name for name in names if names.count(name) > 1))
    if duplicated:
        module.fail_json(msg="files: each name is given once; more than once: %s" % ", ".join(duplicated))
    if not module.check_mode:
        try:
            os.makedirs(dest, exist_ok=True)
        except OSError as error:
            module.fail_json(msg="dest=%s cannot be made a directory: %s" % (dest, error))
    paths, changed_files, diffs = [], [], []
    for item in module.params["files"]:
        path = os.path.join(dest, item["name"])
        content = to_bytes(item["content"], errors="surrogate_or_strict")
        changed, before = update(module, path, content, mode)
        paths.append(path)
        if changed:
            changed_files.append(path)
        if module._diff and before != content:
            diffs.append({"before_header": path, "after_header": path, "before": (before or b"").decode("utf-8", "replace"),
                          "after": item["content"]})
    result = dict(changed=bool(changed_files), files=paths, changed_files=changed_files)
    if module._diff:
        result["diff"] = diffs
    module.exit_json(**result)


if __name__ == "__main__":
    main()
