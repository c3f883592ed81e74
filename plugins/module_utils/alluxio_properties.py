# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks of Alluxio 2.9 properties before they reach a cluster.

The table holds the properties the tuning profiles and the source documents use, with the
values Alluxio 2.9 accepts. A value outside them is an error (seed 004's client cache store
type ``MEMORY`` is the known case); a name outside the table is a warning, since Alluxio has
hundreds of properties and a site may use any.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_BOOL = ("true", "false")
_ALLUXIO_BYTES = re.compile(r"^[0-9]+(\.[0-9]+)?\s*([KMGTP]B?|B)?$", re.IGNORECASE)
_DURATION = re.compile(r"^[0-9]+\s*(ms|millisecond|s|sec|second|m|min|minute|h|hr|hour|d|day)s?$", re.IGNORECASE)

# name -> kind, or a tuple of the values allowed. Sources: Alluxio 2.9 property reference,
# Fluid's DL-training samples and seed 004.
KNOWN = {
    "alluxio.fuse.jnifuse.enabled": "bool",
    "alluxio.fuse.cached.paths.max": "int",
    "alluxio.fuse.web.enabled": "bool",
    "alluxio.fuse.user.group.translation.enabled": "bool",
    "alluxio.master.metastore": ("HEAP", "ROCKS"),
    "alluxio.master.metastore.inode.cache.max.size": "int",
    "alluxio.master.mount.table.root.ufs": "str",
    "alluxio.master.journal.type": ("UFS", "EMBEDDED", "NOOP"),
    "alluxio.user.block.size.bytes.default": "bytes",
    "alluxio.user.streaming.reader.chunk.size.bytes": "bytes",
    "alluxio.user.local.reader.chunk.size.bytes": "bytes",
    "alluxio.worker.network.reader.buffer.size": "bytes",
    "alluxio.user.file.passive.cache.enabled": "bool",
    "alluxio.user.metadata.cache.enabled": "bool",
    "alluxio.user.metadata.cache.expiration.time": "duration",
    "alluxio.user.metadata.cache.max.size": "int",
    "alluxio.user.update.file.accesstime.disabled": "bool",
    "alluxio.user.ufs.block.read.location.policy": "str",
    "alluxio.user.block.write.location.policy.class": "str",
    "alluxio.user.file.readtype.default": ("NO_CACHE", "CACHE", "CACHE_PROMOTE"),
    "alluxio.user.file.writetype.default": ("MUST_CACHE", "CACHE_THROUGH", "THROUGH", "ASYNC_THROUGH"),
    "alluxio.user.metrics.collection.enabled": "bool",
    "alluxio.user.client.cache.enabled": "bool",
    "alluxio.user.client.cache.store.type": ("LOCAL", "ROCKS", "MEM"),
    "alluxio.user.client.cache.dirs": "str",
    "alluxio.user.client.cache.page.size": "bytes",
    "alluxio.user.client.cache.size": "bytes",
    "alluxio.security.stale.channel.purge.interval": "duration",
    "alluxio.web.ui.enabled": "bool",
    "alluxio.worker.allocator.class": "str",
    "alluxio.worker.file.buffer.size": "bytes",
    "alluxio.worker.ramdisk.size": "bytes",
    "alluxio.job.worker.threadpool.size": "int",
    "fs.oss.endpoint": "str",
    "fs.oss.accessKeyId": "secret",
    "fs.oss.accessKeySecret": "secret",
}

# Values that look right but are not: what to use instead.
HINTS = {
    ("alluxio.user.client.cache.store.type", "MEMORY"): "MEM (seed 004 writes MEMORY, which Alluxio 2.9 rejects)",
}

_KIND_HELP = {
    "bool": '"true" or "false"',
    "int": "a whole number",
    "bytes": "an Alluxio size such as 16MB, 2MB or 2000MB",
    "duration": "a duration such as 2day, 365d or 10min",
}


def _value_ok(kind, text):
    if kind == "bool":
        return text.lower() in _BOOL
    if kind == "int":
        return text.isdigit()
    if kind == "bytes":
        return bool(_ALLUXIO_BYTES.match(text))
    if kind == "duration":
        return bool(_DURATION.match(text))
    return True


def check_properties(properties, where="properties"):
    """Return ``(errors, warnings)``: lists of messages naming ``where[name]``, the value and what is allowed."""
    errors, warnings = [], []
    for name in sorted(properties or {}):
        value = properties[name]
        text = str(value).strip()
        if isinstance(value, bool):
            text = "true" if value else "false"
        kind = KNOWN.get(name)
        label = "%s[%s]" % (where, name)
        if kind is None:
            warnings.append("%s: unknown Alluxio 2.9 property name (check the spelling; it is passed on as it is)" % label)
        elif isinstance(kind, tuple):
            if text not in kind:
                hint = HINTS.get((name, text.upper()))
                errors.append("%s=%s is not one of %s%s" % (
                    label, text, ", ".join(kind), "; use " + hint if hint else ""))
        elif not _value_ok(kind, text):
            errors.append("%s=%s is not %s" % (label, text, _KIND_HELP[kind]))
    return errors, warnings
