# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters: the object stores' key Secrets (datasets_oss_secrets, datasets_s3_secrets), what is
wrong with them, and which still hold a placeholder. None shows a key."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError
from ansible_collections.fluidops.accel.plugins.module_utils.common.stores import STORES
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import build_store_secret
from ansible_collections.fluidops.accel.plugins.plugin_utils.schema_check import require_accepted


def store_secret_manifests(secrets, namespace, store="oss"):
    """The Secrets of ``datasets_oss_secrets`` (or of ``datasets_s3_secrets``, store s3); callers
    keep the result out of logs."""
    try:
        return [build_store_secret(name, credentials or {}, namespace, store) for name, credentials in sorted((secrets or {}).items())]
    except InputError as exc:
        raise AnsibleFilterError(str(exc)) from exc


def store_secret_problems(secrets, namespace="default", store="oss"):
    """What is wrong with ``datasets_oss_secrets`` (or ``datasets_s3_secrets``, store s3), naming
    Secrets but never showing a value."""
    if store not in STORES:
        raise AnsibleFilterError("store=%s is not one of %s" % (store, ", ".join(sorted(STORES))))
    problems = []
    for name, credentials in sorted((secrets or {}).items()):
        try:
            require_accepted([build_store_secret(name, credentials or {}, namespace, store)], "%s[%s]" % (STORES[store]["variable"], name))
        except InputError as exc:
            problems.append(str(exc))
    return problems


def placeholder_credentials(secrets, prefix=""):
    """Names (with ``prefix``) of the credentials in ``{name: {access_key_id, access_key_secret}}``
    that still hold a placeholder (CHANGE-ME, xxx, <...>) instead of a key. Never returns a value."""
    def placeholder(value):
        text = str(value or "").strip()
        return not text or text.upper() in ("CHANGE-ME", "XXX") or (text.startswith("<") and text.endswith(">"))
    return sorted(prefix + name for name, credentials in (secrets or {}).items()
                  if any(placeholder((credentials or {}).get(key)) for key in ("access_key_id", "access_key_secret")))


class FilterModule(object):
    def filters(self):
        return {
            "store_secret_manifests": store_secret_manifests,
            "store_secret_problems": store_secret_problems,
            "placeholder_credentials": placeholder_credentials,
        }
