# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The checks every layer shares: the error a bad variable raises, and the grammars of names.

``InputError``'s message names the variable, the bad value and what is allowed; the filters turn
it into a failed task. The name grammars are those of Kubernetes'
k8s.io/apimachinery/pkg/util/validation/validation.go (v0.33, as in Kubernetes 1.33), written
here once: the builders, the whole-inventory checks, the schema check and the roles' asserts
(through the test ``fluidops.accel.k8s_name``) all read them. docs/development.md says which
layer a new check belongs in.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re


class InputError(ValueError):
    """Invalid variables; the message says which, what and what is allowed."""


def require(condition, message):
    if not condition:
        raise InputError(message)


_KINDS = {list: "a list", dict: "a mapping", str: "a string", int: "a whole number"}


def typed(value, kind, where, default=None):
    """``value`` when it is of ``kind`` (list, dict, str, int), ``default`` when it is None. Anything
    else is refused by name: a string given for a list would otherwise be read as its characters."""
    if value is None:
        return default
    require(isinstance(value, kind) and not (kind is int and isinstance(value, bool)),
            "%s must be %s, got %s" % (where, _KINDS[kind], next((name for k, name in _KINDS.items() if isinstance(value, k)),
                                                                 type(value).__name__)
                                       + ("" if isinstance(value, (dict, list)) else " (%s)" % str(value)[:60])))
    return value


_DNS1123_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL = re.compile(r"\A%s\Z" % _DNS1123_LABEL)  # IsDNS1123Label, at most 63 characters
DNS1123_SUBDOMAIN = re.compile(r"\A%s(\.%s)*\Z" % (_DNS1123_LABEL, _DNS1123_LABEL))  # IsDNS1123Subdomain, at most 253
DNS1035_LABEL = re.compile(r"\A[a-z]([-a-z0-9]*[a-z0-9])?\Z")  # IsDNS1035Label, at most 63
QUALIFIED_NAME = re.compile(r"\A([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")  # IsQualifiedName's name part, at most 63
LABEL_VALUE = re.compile(r"\A(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\Z")  # IsValidLabelValue, at most 63
CONFIG_MAP_KEY = re.compile(r"\A[-._a-zA-Z0-9]+\Z")  # IsConfigMapKey, at most 253, not . or ..

NAME_RULES = {
    "label": (DNS1123_LABEL, 63, "a DNS-1123 label (at most 63 lower case letters, digits and '-', starting and ending with a letter or digit)"),
    "subdomain": (DNS1123_SUBDOMAIN, 253,
                  "a DNS-1123 subdomain (at most 253 lower case letters, digits, '-' and '.', starting and ending with a letter or digit)"),
    "dns1035": (DNS1035_LABEL, 63,
                "a DNS-1035 label (at most 63 lower case letters, digits and '-', starting with a letter and ending with a letter or digit)"),
}

# A URL with a scheme (a mount point, an under-store's root): oss://bucket/dir/, pvc://claim.
URL = re.compile(r"^[a-z][a-z0-9+.-]*://.+")


# Label and annotation keys: [<DNS-1123 subdomain>/]<name> (qualified_name_problem).
LABEL_KEY = "label_key"


def name_problem(value, rule="label"):
    """What is wrong with ``value`` as a name of ``rule`` (a key of NAME_RULES, or LABEL_KEY), or None."""
    if rule == LABEL_KEY:
        return qualified_name_problem(value) if isinstance(value, str) else "is not a label key such as example.com/gpu-pool"
    pattern, limit, text = NAME_RULES[rule]
    if not isinstance(value, str) or len(value) > limit or not pattern.match(value):
        return "is not %s" % text
    return None


def is_name(value, rule="label"):
    return name_problem(value, rule) is None


def require_name(value, where, rule="label"):
    """Raises InputError naming ``where`` when ``value`` is not a name of ``rule``."""
    problem = name_problem(value, rule)
    require(problem is None, "%s=%s %s" % (where, value if value not in (None, "") else "(unset)", problem))
    return value


def qualified_name_problem(key):
    """IsQualifiedName: [<DNS-1123 subdomain>/]<name>, for label and annotation keys; None when good."""
    parts = key.split("/")
    if len(parts) > 2:
        return "has more than one '/'"
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix or len(prefix) > 253 or not DNS1123_SUBDOMAIN.match(prefix):
            return "has a prefix (before '/') that is not a DNS-1123 subdomain such as example.com"
    name = parts[-1]
    if not name or len(name) > 63 or not QUALIFIED_NAME.match(name):
        return ("has a name part%s that is not 1-63 letters, digits, '-', '_' or '.' starting and ending with a letter or digit"
                % (" (after '/')" if len(parts) == 2 else ""))
    return None


def label_value_problem(value):
    """IsValidLabelValue; None when good."""
    if len(value) > 63 or not LABEL_VALUE.match(value):
        return "is not a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, or empty"
    return None


def key_problem(key):
    """IsConfigMapKey, for Secret and ConfigMap keys; None when good."""
    if len(key) > 253 or not CONFIG_MAP_KEY.match(key) or key in (".", ".."):
        return "is not a key a Secret or ConfigMap takes: at most 253 letters, digits, '-', '_' or '.', and not . or .."
    return None
