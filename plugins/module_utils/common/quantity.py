# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Byte quantities as Kubernetes, Fluid, Alluxio and mount(8) write them.

Accepted forms: a plain number of bytes (``1073741824``), Kubernetes suffixes (``100Gi``
binary, ``180G`` decimal), and byte-suffixed forms as Fluid's status and Alluxio write
them (``143.67GiB``, ``0B``, ``2MB``). Alluxio reads ``MB``/``GB`` as powers of 1024, so the
``XB`` forms are binary here too.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from decimal import Decimal, InvalidOperation

_BINARY = {"K": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}
_QUANTITY_RE = re.compile(r"^\s*(?P<number>[0-9]+(?:\.[0-9]+)?)\s*(?P<unit>[A-Za-z]*)\s*$")

QUANTITY_HELP = (
    "a byte quantity such as 512Mi, 100Gi, 180G, 2MB or 1073741824 "
    "(Ki/Mi/Gi/Ti/Pi/Ei and KiB.., KB/MB/GB.. are powers of 1024; k/M/G/T/P/E powers of 1000)"
)


class QuantityError(ValueError):
    """A value that is not a byte quantity."""


def _unit_factor(unit):
    if unit in ("", "B"):
        return 1
    if unit == "k":
        return 1000
    letter = unit[0].upper()
    if letter not in _BINARY:
        return None
    exponent = _BINARY[letter]
    rest = unit[1:]
    if rest in ("i", "iB", "B"):
        return 1024 ** exponent
    # Kubernetes decimal suffixes are case-sensitive: M, G, T, P, E (and k above).
    if rest == "" and unit[0].isupper() and letter != "K":
        return 1000 ** exponent
    return None


def parse_bytes(value):
    """Return the number of bytes in ``value`` as an int, or raise QuantityError."""
    if isinstance(value, bool):
        raise QuantityError("%r is not %s" % (value, QUANTITY_HELP))
    if isinstance(value, int):
        if value < 0:
            raise QuantityError("%r is negative; expected %s" % (value, QUANTITY_HELP))
        return value
    if isinstance(value, float):
        value = repr(value)
    if not isinstance(value, str):
        raise QuantityError("%r is not %s" % (value, QUANTITY_HELP))
    match = _QUANTITY_RE.match(value)
    factor = _unit_factor(match.group("unit")) if match else None
    if factor is None:
        raise QuantityError("%r is not %s" % (value, QUANTITY_HELP))
    try:
        number = Decimal(match.group("number"))
    except InvalidOperation:
        raise QuantityError("%r is not %s" % (value, QUANTITY_HELP)) from None
    return int(number * factor)


_JVM_SIZE_RE = re.compile(r"^([0-9]+)([kKmMgGtT]?)$")


def jvm_size(options, flag):
    """The bytes of the last ``flag`` among JVM options (``-Xmx`` takes ``-Xmx16G``,
    ``-XX:MaxDirectMemorySize=`` takes ``-XX:MaxDirectMemorySize=32g``), as the JVM reads it: its
    last, k/m/g/t powers of 1024 whatever their case. None when no option sets it."""
    found = None
    for option in options or []:
        text = str(option)
        if text.startswith(flag):
            match = _JVM_SIZE_RE.match(text[len(flag):])
            if match:
                found = int(match.group(1)) * 1024 ** " kmgt".index(match.group(2).lower() or " ")
    return found


# The Kubernetes quantity grammar, as controller-gen writes it on the CRDs' quantity fields (Fluid's
# tier quota) and the apiserver parses it for built-ins (a PVC's storage): no spaces, no "GB".
_K8S_QUANTITY_RE = re.compile(r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")


def is_k8s_quantity(value):
    """Whether the API server takes ``value`` as a quantity (an int, or a string in its grammar)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, str) and bool(_K8S_QUANTITY_RE.match(value))


def is_quantity(value):
    try:
        parse_bytes(value)
    except QuantityError:
        return False
    return True


def mount_size(value):
    """Bytes as tmpfs/ramfs ``size=`` wants them: k/m/g are powers of 1024 for mount(8)."""
    size = parse_bytes(value)
    for suffix, exponent in (("g", 3), ("m", 2), ("k", 1)):
        if size and size % (1024 ** exponent) == 0:
            return "%d%s" % (size // (1024 ** exponent), suffix)
    return str(size)


_FORMAT_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")


def format_bytes(count):
    """Bytes as Fluid's status writes them: two decimals and a binary unit (``143.67GiB``, ``0.00B``)."""
    value = count if isinstance(count, float) else float(parse_bytes(count))
    unit = 0
    while value >= 1024 and unit < len(_FORMAT_UNITS) - 1:
        value, unit = value / 1024, unit + 1
    return "%.2f%s" % (value, _FORMAT_UNITS[unit])


def parse_ok(quantity):
    """A byte count above zero (Kubernetes also takes 100m or -1, which are no size)."""
    try:
        return parse_bytes(quantity) > 0
    except ValueError:
        return False


_CORES_RE = re.compile(r"^[0-9]+(\.[0-9]+)?m?$")


def cores(quantity):
    """A CPU quantity in cores (8, 1.5 or 500m), or None when it is not written so."""
    text = str(quantity)
    if not _CORES_RE.match(text):
        return None
    return float(text[:-1]) / 1000 if text.endswith("m") else float(text)
