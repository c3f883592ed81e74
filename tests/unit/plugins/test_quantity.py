"""Byte quantities as Kubernetes, Fluid's status, Alluxio and mount(8) write them."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.filter.quantity import FilterModule
from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import (
    QuantityError,
    cores,
    format_bytes,
    is_quantity,
    jvm_size,
    mount_size,
    parse_bytes,
)
from ansible_collections.fluidops.accel.plugins.test.quantity import TestModule as QuantityTests

GI = 1024 ** 3


@pytest.mark.parametrize(
    "text, expected",
    [
        ("100Gi", 100 * GI),                      # seed 000 MEM tier quota
        ("180G", 180 * 10 ** 9),                  # seed 001 Jindo quota: decimal per Kubernetes
        ("1Gi", GI),
        ("512Mi", 512 * 1024 ** 2),
        ("1Ki", 1024),
        ("2k", 2000),
        ("143.67GiB", int(143.67 * GI)),          # Fluid status ufsTotal
        ("0B", 0),
        ("2MB", 2 * 1024 ** 2),                   # Alluxio page size: MB is binary in Alluxio
        ("2000MB", 2000 * 1024 ** 2),
        ("1073741824", GI),
        (1073741824, GI),
        ("1.5Ti", int(1.5 * 1024 ** 4)),
        (" 20Gi ", 20 * GI),
    ],
)
def test_parse_bytes(text, expected):
    assert parse_bytes(text) == expected


@pytest.mark.parametrize("bad", ["", "Gi", "ten", "10 apples", "-1Gi", "1.2.3G", "10g", "5m", "1Xi", None, True, [], -5, "1e3"])
def test_parse_bytes_rejects_non_quantities(bad):
    with pytest.raises(QuantityError) as error:
        parse_bytes(bad)
    assert "byte quantity" in str(error.value)
    assert not is_quantity(bad)


@pytest.mark.parametrize(
    "text, expected",
    [("1Gi", "1g"), ("256Mi", "256m"), ("1536Mi", "1536m"), ("4Ki", "4k"), ("1G", "1000000000"), ("1000", "1000")],
)
def test_mount_size_uses_mount_binary_suffixes(text, expected):
    assert mount_size(text) == expected


def test_filters_and_test_are_registered():
    filters = FilterModule().filters()
    assert filters["to_bytes"]("1Gi") == GI
    assert filters["mount_size"]("2Gi") == "2g"
    assert QuantityTests().tests()["quantity"]("100Gi")
    assert not QuantityTests().tests()["quantity"]("100 GB please")


def test_filter_error_names_the_value():
    with pytest.raises(AnsibleFilterError, match="'lots' is not a byte quantity"):
        FilterModule().filters()["to_bytes"]("lots")


@pytest.mark.parametrize(
    "count, expected",
    [(0, "0.00B"), (int(143.67 * GI), "143.67GiB"), (400 * GI, "400.00GiB"), ("2MB", "2.00MiB"), (1023, "1023.00B"), (1.5 * 1024, "1.50KiB")],
)
def test_format_bytes_as_fluid_writes_them(count, expected):
    assert format_bytes(count) == expected
    assert FilterModule().filters()["format_bytes"](count) == expected


def test_format_round_trips_through_parse():
    assert parse_bytes(format_bytes(400 * GI)) == 400 * GI


def test_jvm_sizes_are_the_last_option_s_in_powers_of_1024_whatever_their_case():
    assert jvm_size(["-Xms16G", "-Xmx16G", "-XX:+UseG1GC"], "-Xmx") == 16 * GI
    assert jvm_size(["-Xmx16G", "-Xmx512m"], "-Xmx") == 512 * 1024 ** 2
    assert jvm_size(["-XX:MaxDirectMemorySize=32g"], "-XX:MaxDirectMemorySize=") == 32 * GI
    assert jvm_size(["-Xmx1073741824"], "-Xmx") == GI
    assert jvm_size(["-Xms1g", "-Xmxlots"], "-Xmx") is None and jvm_size(None, "-Xmx") is None


@pytest.mark.parametrize("text, expected", [("8", 8.0), ("1.5", 1.5), ("500m", 0.5), ("2500m", 2.5), ("0", 0.0),
                                            ("8 cores", None), ("-1", None), ("1e3", None), ("500M", None), ("", None)])
def test_cpu_quantities_read_as_cores(text, expected):
    assert cores(text) == expected
