"""Fluid status objects as numbers: fixtures are Dataset and runtime objects in Fluid 1.0's shape."""

import os

import pytest
import yaml
from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.filter.quantity import to_percent
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.status import dataset_summary, percentage, runtime_summary, size, table

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "fluid")
GIB = 1024 ** 3


def fixture(name):
    with open(os.path.join(FIXTURES, name + ".yaml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def test_fresh_notbound_dataset_has_no_numbers_yet():
    summary = dataset_summary(fixture("dataset-notbound-fresh"))
    assert summary["phase"] == "NotBound"
    assert summary["cached_bytes"] is None and summary["cached_percentage"] is None and summary["ufs_total_bytes"] is None
    assert summary["runtime_kind"] is None and summary["runtime"] is None and summary["hit_ratios"] == {}


def test_bound_at_zero_percent_seed_001():
    summary = dataset_summary(fixture("dataset-bound-empty"), fixture("jindoruntime-ready"))
    assert summary["phase"] == "Bound"
    assert summary["ufs_total_bytes"] == int(143.67 * GIB)
    assert summary["cached_bytes"] == 0 and summary["cached_percentage"] == 0.0
    assert summary["cache_capacity_bytes"] == 648 * GIB
    assert summary["runtime_kind"] == "JindoRuntime"
    assert summary["conditions"][0]["reason"] == "DatasetReady"
    assert summary["runtime"]["worker"] == {"phase": "Ready", "ready": 3, "desired": 3, "scheduled": 3}


def test_bound_at_hundred_percent_with_hit_ratios():
    summary = dataset_summary(fixture("dataset-bound-full"), fixture("alluxioruntime-partial"))
    assert summary["cached_percentage"] == 100.0 and summary["cached_bytes"] == summary["ufs_total_bytes"]
    assert summary["hit_ratios"]["cacheHitRatio"] == 87.5 and summary["hit_ratios"]["remoteThroughputRatio"] == 25.1
    assert summary["runtime_kind"] == "AlluxioRuntime"
    runtime = summary["runtime"]
    assert runtime["master"] == {"phase": "Ready", "ready": 1, "desired": 1, "scheduled": 1}
    assert runtime["worker"]["phase"] == "PartialReady" and runtime["worker"]["ready"] == 3 and runtime["worker"]["desired"] == 4
    assert runtime["fuse"]["ready"] == 2


def test_failed_dataset_keeps_its_condition():
    summary = dataset_summary(fixture("dataset-failed"))
    assert summary["phase"] == "Failed"
    assert summary["conditions"] == [{"type": "Ready", "status": "False", "reason": "DatasetFailed",
                                      "message": "failed to setup the ddc engine: the UFS oss://imagenet-bucket/imagenet/ is not reachable",
                                      "lastTransitionTime": "2024-03-02T08:15:41Z"}]


def test_malformed_values_become_none_not_errors():
    summary = dataset_summary(fixture("dataset-malformed"))
    assert summary["cached_bytes"] is None and summary["cache_capacity_bytes"] is None
    assert summary["cached_percentage"] is None and summary["ufs_total_bytes"] is None
    assert "-" in table([summary])


def test_runtime_without_status():
    summary = runtime_summary({"kind": "AlluxioRuntime", "metadata": {"name": "x"}})
    assert summary["master"] == {"phase": None, "ready": None, "desired": None, "scheduled": None}


@pytest.mark.parametrize("text, expected", [("87.5%", 87.5), ("0%", 0.0), ("100.0%", 100.0), (" 42 ", 42.0), (12, 12.0),
                                            ("NaN%", None), ("", None), (None, None), ("87.5%%", None), (True, None)])
def test_percentage(text, expected):
    assert percentage(text) == expected


@pytest.mark.parametrize("text, expected", [("143.67GiB", int(143.67 * GIB)), ("0B", 0), ("0.00B", 0), ("100Gi", 100 * GIB),
                                            ("180G", 180 * 1000 ** 3), ("N/A", None), ("", None), (None, None)])
def test_size(text, expected):
    assert size(text) == expected


def test_to_percent_filter_names_the_bad_value():
    assert to_percent("87.5%") == 87.5
    with pytest.raises(AnsibleFilterError, match="'lots' is not a percentage"):
        to_percent("lots")


def test_table_has_kubectls_columns_and_the_runtime_phases():
    summary = dataset_summary(fixture("dataset-bound-empty"), fixture("jindoruntime-ready"))
    lines = table([summary]).splitlines()
    assert lines[0].split("  ")[0] == "NAME" and "CACHED PERCENTAGE" in lines[0]
    assert lines[1].split() == ["imagenet", "143.67GiB", "0.00B", "648.00GiB", "0.0%", "Bound"]
    # No hit ratio before Fluid has read the master's metrics twice.
    assert lines[4].split() == ["imagenet", "JindoRuntime", "Ready", "1/1", "Ready", "3/3", "Ready", "3/3", "-"]
    assert max(len(line) for line in lines) < 80


def test_table_shows_fluid_s_cache_hit_ratio_with_the_runtime():
    lines = table([dataset_summary(fixture("dataset-bound-full"), fixture("jindoruntime-ready"))]).splitlines()
    assert lines[3].split()[-2:] == ["HIT", "RATIO"] and lines[4].split()[-1] == "87.5%"
