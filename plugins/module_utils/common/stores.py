# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The object stores whose keys a mount takes from a Secret, for Fluid's datasets and the
standalone chart alike."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The object stores whose keys a mount takes from a Secret: the mount points' schemes, the mount's
# field that names the Secret, the variable that defines such Secrets, and the Alluxio properties
# the two keys fill (also the Secret's keys), then other names Alluxio reads for them (its
# PropertyKey aliases), which count as keys too.
STORES = {
    "oss": {"label": "OSS", "schemes": ("oss",), "field": "oss_secret", "variable": "datasets_oss_secrets",
            "keys": ("fs.oss.accessKeyId", "fs.oss.accessKeySecret"), "aliases": ()},
    "s3": {"label": "S3", "schemes": ("s3", "s3a"), "field": "s3_secret", "variable": "datasets_s3_secrets",
           "keys": ("aws.accessKeyId", "aws.secretKey"), "aliases": ("s3a.accessKeyId", "s3a.secretKey")},
}
OSS_KEYS = STORES["oss"]["keys"]
KEY_PROPERTIES = tuple(key for store in STORES.values() for key in store["keys"] + store["aliases"])


def store_of(mount_point):
    """The store (a key of STORES) a mount point's scheme names, or None."""
    scheme = str(mount_point).split("://", 1)[0]
    return next((name for name, store in STORES.items() if scheme in store["schemes"]), None)
