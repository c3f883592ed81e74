# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks of Alluxio 2.9 properties before they reach a cluster.

The names and types come from Alluxio's own ``alluxio.conf.PropertyKey`` (every default key, its
aliases and the name templates such as ``alluxio.worker.tieredstore.level%d.alias``), written into
``property_table.py`` beside it, by ``tools/alluxio/property_table.sh``. The values are read with
Alluxio's own grammar, ported below from its Java sources with the class and method each follows.

A value Alluxio would refuse or misread is an error (seed 004's client cache store type ``MEMORY``
is the known case); a name Alluxio does not know is a warning, since Alluxio takes any name (it
keeps an unknown one as a custom property, which an under storage may read).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import math
import re
from decimal import Decimal

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.property_table import ALIASES, DEPRECATED, ENUMS, KEYS, TEMPLATES, VERSION

# Values that look right but are not: what to use instead.
HINTS = {
    ("alluxio.user.client.cache.store.type", "MEMORY"): "MEM (seed 004 writes MEMORY, which Alluxio 2.9 rejects)",
}

_TEMPLATES = tuple((re.compile(pattern, re.ASCII), kind) for _constant, pattern, kind, _example in TEMPLATES)

# PropertyKey.CONF_REGEX: a value with a ${name} reference is resolved when it is read
# (InstancedConfiguration.lookupRecursively), and only then parsed. The chart's values also reach
# Alluxio through a shell, which resolves ${VARIABLE}s first. Neither can be checked here.
_REFERENCE = re.compile(r"\$\{[^{}]*\}")

_LONG_MIN, _LONG_MAX = -(2 ** 63), 2 ** 63 - 1
_INT_MIN, _INT_MAX = -(2 ** 31), 2 ** 31 - 1
# alluxio.Constants
_KB, _MB, _GB, _TB, _PB = (1024 ** power for power in range(1, 6))
_SECOND, _MINUTE, _HOUR, _DAY = 1000, 60 * 1000, 60 * 60 * 1000, 24 * 60 * 60 * 1000


def java_trim(text):
    """``String.trim()``: AlluxioProperties.merge trims each name and value (every char up to U+0020)."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def property_type(name):
    """Alluxio's type of the property ``name`` as ``PropertyKey.fromString`` resolves it (a key, an
    alias, then the first template that matches; a nested template takes the type of the key it
    nests, STRING if it nests none): a PropertyType name such as ``DATASIZE``, ``ENUM:<enum class>``
    (constants in ENUMS), ``ENUM`` alone for an enum key nested in a template (Alluxio 2.9.3 fails
    on any value of it: PropertyKey.getEnumType throws while AlluxioProperties.merge parses it), or
    None when ``PropertyKey.isValid`` is false."""
    if name in KEYS:
        return KEYS[name]
    if name in ALIASES:
        return KEYS[ALIASES[name]]
    for pattern, kind in _TEMPLATES:
        match = pattern.fullmatch(name)
        if match:
            if kind == "NESTED":
                nested = property_type(match.group("nested")) or "STRING"
                # The template's property creator copies the nested key's type, not its enum class.
                return "ENUM" if nested.startswith("ENUM:") else nested
            return kind
    return None


def _java_long(value):
    """A Java ``(long)`` cast of a double: toward zero, NaN to 0, saturated at the long range."""
    if math.isnan(value):
        return 0
    if value >= 2.0 ** 63:
        return _LONG_MAX
    if value <= -(2.0 ** 63):
        return _LONG_MIN
    return int(value)


# Double.parseDouble's grammar (the Javadoc of Double.valueOf(String)): after String.trim(), a
# sign, then NaN, Infinity, a decimal or a hexadecimal floating-point literal, the last two with
# an optional type suffix f/F/d/D. Digits are ASCII; no underscores (Python's float() differs on
# all of these: inf/nan spellings, underscores, Unicode digits, no hex, no suffix).
_JAVA_DOUBLE = re.compile(
    r"[+-]?(?:NaN|Infinity"
    r"|(?P<decimal>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)[fFdD]?"
    r"|(?P<hex>0[xX](?:[0-9a-fA-F]+\.?|[0-9a-fA-F]*\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?)")


def parse_double(text):
    """``Double.parseDouble``: the float, or ValueError."""
    text = java_trim(text)
    match = _JAVA_DOUBLE.fullmatch(text)
    if not match:
        raise ValueError("not a Java double: %r" % text)
    sign = -1.0 if text.startswith("-") else 1.0
    if match.group("hex"):
        try:
            return sign * float.fromhex(match.group("hex"))
        except OverflowError:  # Java rounds to Infinity
            return sign * float("inf")
    if match.group("decimal"):
        return sign * float(match.group("decimal"))
    return sign * float(text.lstrip("+-"))  # NaN, Infinity: Python's float() reads both


def parse_int(text, bits=32):
    """``Integer.parseInt`` (bits 32) or ``Long.parseLong`` (bits 64): the int, or ValueError. A
    sign, then decimal digits (``Character.digit``: any Unicode decimal digit), within the range."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    # Java reads UTF-16 chars: a digit outside the BMP is two surrogates, neither a digit.
    if not digits or not all(char.isdecimal() and char <= "\uffff" for char in digits):
        raise ValueError("not a whole number: %r" % text)
    value = int(text)
    if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
        raise ValueError("out of the %d-bit range: %r" % (bits, text))
    return value


def java_equals_ignore_case(text, word):
    """``String.equalsIgnoreCase``: char by char, equal as they are, upper-cased or then lower-cased."""
    if len(text) != len(word):
        return False
    for one, other in zip(text, word):
        upper_one, upper_other = _char_upper(one), _char_upper(other)
        if one != other and upper_one != upper_other and upper_one.lower() != upper_other.lower():
            return False
    return True


def _char_upper(char):
    upper = char.upper()  # Character.toUpperCase(char) maps to one char: keep it when Python's is longer
    return upper if len(upper) == 1 else char


def parse_boolean(text):
    """``Boolean.parseBoolean``, as PropertyKey.parseValue reads a BOOLEAN: true for "true" in any
    case, false for anything else; it never fails."""
    return java_equals_ignore_case(text, "true")


def parse_enum(constants, text):
    """PropertyKey.parseValue for an ENUM: ``Enum.valueOf`` with the value, then with it upper-cased
    (ALLUXIO-3402): the constant's name, or ValueError (Alluxio then keeps the string, and
    InstancedConfiguration.getEnum fails where the property is read)."""
    for candidate in (text, text.upper()):
        if candidate in constants:
            return candidate
    raise ValueError("not one of %s: %r" % (", ".join(constants), text))


def parse_space_size(text):
    """``alluxio.util.FormatUtils.parseSpaceSize`` (Alluxio 2.9.3): the bytes, or ValueError.

    The unit is every char after the last ASCII digit, lower-cased: none or b; k, kb, ki, kib and
    the same for m, g, t and p (all powers of 1024). What comes before is read by
    Double.parseDouble (so 1.5GB, 1e3KB or 0x1p4MB), multiplied as a double, plus 0.0001, cast to
    long; petabytes go through ``BigDecimal.valueOf(double)``, whose decimal string is Python's
    repr here (the shortest, as Java 19+ prints it; older Javas may print more digits)."""
    index = len(text)
    while index > 0 and not "0" <= text[index - 1] <= "9":
        index -= 1
    unit = text[index:].lower()
    try:
        value = parse_double(text[:index])
    except ValueError:
        raise ValueError("Fail to parse %s to bytes" % text) from None
    alpha = 0.0001
    if unit in ("", "b"):
        return _java_long(value + alpha)
    for letter, size in (("k", _KB), ("m", _MB), ("g", _GB), ("t", _TB)):
        if unit in (letter + "b", letter, letter + "ib", letter + "i"):
            return _java_long(value * size + alpha)
    if unit in ("pb", "p", "pib", "pi"):
        if math.isnan(value) or math.isinf(value):
            raise ValueError("Fail to parse %s to bytes" % text)  # BigDecimal.valueOf throws
        exact = int(Decimal(_PB) * Decimal(repr(value)))  # BigDecimal.longValue: truncated ...
        return (exact + 2 ** 63) % 2 ** 64 - 2 ** 63  # ... to its low 64 bits
    raise ValueError("Fail to parse %s to bytes" % text)


# FormatUtils.SEP_DIGIT_LETTER, matched whole: the sign and digits, then the letters.
_SEP_DIGIT_LETTER = re.compile(r"(-?[0-9]*)([a-zA-Z]*)")
_TIME_UNITS = ((("", "ms", "millisecond"), 1), (("s", "sec", "second"), _SECOND), (("m", "min", "minute"), _MINUTE),
               (("h", "hr", "hour"), _HOUR), (("d", "day"), _DAY))


def parse_time_size(text):
    """``alluxio.util.FormatUtils.parseTimeSize`` (Alluxio 2.9.3): the milliseconds, or ValueError.

    A whole number (a minus sign allowed, no decimal point, no space), then a unit in any case:
    none, ms or millisecond; s, sec or second; m, min or minute (not month); h, hr or hour; d or
    day. No plurals: 2days is refused."""
    match = _SEP_DIGIT_LETTER.fullmatch(text)
    number, unit = match.groups() if match else ("", "")
    try:
        value = parse_double(number)
    except ValueError:
        raise ValueError("Fail to parse %s to milliseconds" % text) from None
    sign = 1
    if value < 0:
        sign, value = -1, -value
    for names, size in _TIME_UNITS:
        if unit.lower() in names:
            return sign * _java_long(value * size + 0.0001)
    raise ValueError("Fail to parse %s to milliseconds" % text)


# Guava's CharMatcher.whitespace(), which ConfigurationUtils.parseAsList trims each item with.
_GUAVA_WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
                    "\u2028\u2029\u202f\u205f\u3000"


def parse_list(text, delimiter=","):
    """``ConfigurationUtils.parseAsList``, as InstancedConfiguration.getList reads a LIST: split at
    the delimiter, each item trimmed, empty ones dropped."""
    return [item.strip(_GUAVA_WHITESPACE) for item in text.split(delimiter) if item.strip(_GUAVA_WHITESPACE)]


# LIST properties whose items Alluxio reads as another type. PropertyKey types them only as lists;
# alluxio.client.file.cache.store.PageStoreOptions.createPageStoreOptions reads each item of these
# two with FormatUtils.parseSpaceSize (one size per cache directory).
LIST_ITEMS = {
    "alluxio.user.client.cache.size": "DATASIZE",
    "alluxio.worker.page.store.sizes": "DATASIZE",
}


def parse_value(kind, text):
    """The (trimmed) ``text`` as Alluxio reads a property of type ``kind`` (a PropertyType name,
    ``ENUM:<enum class>`` or ``LIST:<type of the items>``): bytes for DATASIZE, milliseconds for
    DURATION, an int, a float, a bool, an enum constant's name, a list of strings (or of the items'
    values), a string for the others. ValueError when Alluxio refuses it where it reads it, or
    (BOOLEAN) when it is neither true nor false, which Alluxio reads as false without a word."""
    if kind.startswith("ENUM:"):
        return parse_enum(ENUMS[kind[len("ENUM:"):]], text)
    if kind == "ENUM":
        raise ValueError("an enum without its constants: %r" % text)
    if kind.startswith("LIST:"):
        return [parse_value(kind[len("LIST:"):], item) for item in parse_list(text)]
    if kind == "BOOLEAN":
        if not (java_equals_ignore_case(text, "true") or java_equals_ignore_case(text, "false")):
            raise ValueError("read as false: %r" % text)
        return parse_boolean(text)
    if kind in ("INTEGER", "LONG"):
        return parse_int(text, 32 if kind == "INTEGER" else 64)
    if kind == "DOUBLE":
        return parse_double(text)
    if kind == "DATASIZE":
        return parse_space_size(text)
    if kind == "DURATION":
        return parse_time_size(text)
    if kind == "LIST":
        return parse_list(text)
    return text  # STRING, CLASS (loaded only where Alluxio uses it)


_SIZE = "an Alluxio size such as 16MB, 2MB or 2000MB (a number and one of B, K, KB, Ki, KiB, M, MB, Mi, MiB, G..., T..., P..., " \
        "in any case, with no space)"
# What each type accepts, as the messages say it.
_ALLOWED = {
    "BOOLEAN": '"true" or "false" (in any case; Alluxio %s reads any other value as false)' % VERSION,
    "INTEGER": "a whole number from %d to %d (a Java int)" % (_INT_MIN, _INT_MAX),
    "LONG": "a whole number from %d to %d (a Java long)" % (_LONG_MIN, _LONG_MAX),
    "DOUBLE": "a number such as 0.9 or 1e-3 (Java's Double.parseDouble)",
    "ENUM": "possible: Alluxio %s stops on any value of an enum key nested in a template's name (its PropertyKey has "
            "no enum class); set the key itself" % VERSION,
    "DATASIZE": _SIZE,
    "LIST:DATASIZE": "a comma-separated list of sizes, each " + _SIZE,
    "DURATION": "a duration such as 2day, 365d or 10min (a whole number and one of ms, millisecond, s, sec, second, "
                "m, min, minute, h, hr, hour, d, day, in any case, with no space)",
}


def value_text(value):
    """The string Alluxio gets for a value of the inventory: true/false for a boolean (as Fluid's
    manifests and the chart's values write it), the value as written otherwise, trimmed as
    AlluxioProperties.merge trims it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return java_trim(str(value))


def check_properties(properties, where="properties"):
    """Return ``(errors, warnings)``: lists of messages naming ``where[name]``, the value and what is allowed.

    A value is read as Alluxio reads the string the chart or Fluid passes it (value_text); one with
    a ``${...}`` reference is not checked."""
    errors, warnings = [], []
    for name in sorted(properties or {}):
        text = value_text(properties[name])
        label = "%s[%s]" % (where, name)
        key = java_trim(name)
        kind = property_type(key)
        if kind is None:
            warnings.append("%s: unknown Alluxio 2.9 property name (check the spelling; it is passed on as it is)" % label)
            continue
        if key not in KEYS:  # PropertyKey.fromString: a key's name first, then an alias's
            key = ALIASES.get(key, key)
        if key in DEPRECATED:
            warnings.append("%s: deprecated in Alluxio %s%s" % (label, VERSION, ": " + DEPRECATED[key] if DEPRECATED[key] else ""))
        if kind == "LIST" and key in LIST_ITEMS:
            kind = "LIST:" + LIST_ITEMS[key]
        if _REFERENCE.search(text):
            continue
        try:
            parse_value(kind, text)
        except ValueError:
            if kind.startswith("ENUM:"):
                allowed = "one of " + ", ".join(ENUMS[kind[len("ENUM:"):]])
            else:
                allowed = _ALLOWED[kind]
            hint = HINTS.get((name, text.upper()))
            errors.append("%s=%s is not %s%s" % (label, text, allowed, "; use " + hint if hint else ""))
    return errors, warnings
