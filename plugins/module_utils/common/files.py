# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Files the modules write: only when their bytes differ, never half-written, and nothing in
check mode."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import tempfile


def read(path):
    """The file's bytes, or None when there is none."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None


def replace(module, path, content):
    """Writes ``content`` to ``path`` through a temporary file in its directory, moved over it
    (AnsibleModule.atomic_move: a reader sees the old file or the new one, with the old one's mode,
    or the umask's when there was none)."""
    handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".fluidops-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        module.atomic_move(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def update(module, path, content, mode=None):
    """(changed, the bytes before or None): ``path`` holds ``content`` (bytes) and, when given,
    ``mode``; out of check mode, written only when its bytes differ."""
    before = read(path)
    changed = before != content
    if changed and not module.check_mode:
        replace(module, path, content)
    # In check mode a file not there yet has no mode to compare: it would be written with it.
    if mode is not None and (before is not None or not module.check_mode):
        changed = module.set_mode_if_different(path, mode, changed)
    return changed, before
