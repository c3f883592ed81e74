"""Alluxio 2.9 property checks: names from Alluxio's own table (keys, aliases, templates), values
read with Alluxio's grammar (sizes, durations, numbers, booleans, enums), unknown names.

The cases of tests/alluxio_values.py are checked here against the Python port and in
tests/render/test_alluxio_property_table.py against Alluxio's jars."""

import os

import pytest
import yaml

from ansible_collections.fluidops.accel.plugins.filter.alluxio import FilterModule
from ansible_collections.fluidops.accel.plugins.module_utils.alluxio import property_table as table
from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.properties import (
    check_properties,
    java_trim,
    parse_space_size,
    parse_time_size,
    parse_value,
    property_type,
    value_text,
)
from ansible_collections.fluidops.accel.tests.alluxio_values import NAMES, REFERENCES, REFUSED, VALUES

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
with open(os.path.join(REPO, "roles", "fluidops", "defaults", "main", "tuning_profiles.yml"), encoding="utf-8") as handle:
    BUILT_IN_PROFILES = yaml.safe_load(handle)["fluidops_builtin_tuning_profiles"]

# Fluid's DL-training properties (fluid.md) and seed 004's client cache, as a profile carries them.
DL_PROFILE = {
    "alluxio.fuse.jnifuse.enabled": "true",
    "alluxio.fuse.cached.paths.max": "1000000",
    "alluxio.master.metastore": "ROCKS",
    "alluxio.user.block.size.bytes.default": "16MB",
    "alluxio.user.streaming.reader.chunk.size.bytes": "32MB",
    "alluxio.user.local.reader.chunk.size.bytes": "32MB",
    "alluxio.worker.network.reader.buffer.size": "32MB",
    "alluxio.user.file.passive.cache.enabled": "false",
    "alluxio.user.metadata.cache.enabled": "true",
    "alluxio.user.metadata.cache.expiration.time": "2day",
    "alluxio.user.metadata.cache.max.size": "1000000",
    "alluxio.user.update.file.accesstime.disabled": "true",
    "alluxio.user.ufs.block.read.location.policy": "alluxio.client.block.policy.LocalFirstAvoidEvictionPolicy",
    "alluxio.user.file.readtype.default": "CACHE",
    "alluxio.user.metrics.collection.enabled": "false",
    "alluxio.security.stale.channel.purge.interval": "365d",
    "alluxio.web.ui.enabled": "false",
    "alluxio.user.client.cache.enabled": "true",
    "alluxio.user.client.cache.store.type": "LOCAL",
    "alluxio.user.client.cache.page.size": "2MB",
    "alluxio.user.client.cache.size": "2000MB",
}


def test_the_dl_profile_passes_clean():
    assert check_properties(DL_PROFILE) == ([], [])


@pytest.mark.parametrize("profile", sorted(BUILT_IN_PROFILES))
def test_every_built_in_profile_passes_clean(profile):
    assert check_properties(BUILT_IN_PROFILES[profile].get("properties", {}), profile) == ([], [])


def test_seed_004_memory_store_type_is_refused_with_the_hint():
    errors, _unused = check_properties({"alluxio.user.client.cache.store.type": "MEMORY"}, "alluxio_profile_overrides")
    assert errors == [
        "alluxio_profile_overrides[alluxio.user.client.cache.store.type]=MEMORY is not one of LOCAL, ROCKS, MEM; "
        "use MEM (seed 004 writes MEMORY, which Alluxio 2.9 rejects)"]


@pytest.mark.parametrize("name, value, allowed", [
    ("alluxio.fuse.jnifuse.enabled", "yes", '"true" or "false" (in any case; Alluxio 2.9.3 reads any other value as false)'),
    ("alluxio.user.metadata.cache.max.size", "1e6", "a whole number from -2147483648 to 2147483647"),
    ("alluxio.job.master.job.capacity", "1e6", "a whole number from -9223372036854775808 to 9223372036854775807"),
    ("alluxio.master.metastore.inode.cache.high.water.mark.ratio", "85%", "a number such as 0.9"),
    ("alluxio.user.client.cache.page.size", "two megs", "an Alluxio size"),
    ("alluxio.user.client.cache.page.size", "16 MB", "with no space"),
    ("alluxio.user.metadata.cache.expiration.time", "forever", "a duration"),
    ("alluxio.user.metadata.cache.expiration.time", "2days", "a duration such as 2day"),
    ("alluxio.master.metastore", "rocksdb", "one of HEAP, ROCKS"),
    ("alluxio.user.client.cache.size", "2000 MB", "a comma-separated list of sizes, each an Alluxio size"),
    ("alluxio.master.mount.table.root.option.alluxio.user.file.readtype.default", "CACHE",
     "possible: Alluxio 2.9.3 stops on any value of an enum key nested in a template's name"),
])
def test_bad_values_name_the_property_the_value_and_what_is_allowed(name, value, allowed):
    errors, warnings = check_properties({name: value})
    assert len(errors) == 1 and warnings == []
    assert errors[0].startswith("properties[%s]=%s is not " % (name, value))
    assert allowed in errors[0]


@pytest.mark.parametrize("name, value, expected", VALUES)
def test_values_are_read_as_alluxio_reads_them(name, value, expected):
    kind = property_type(java_trim(name))
    errors, warnings = check_properties({name: value})
    assert warnings == []
    if expected is REFUSED:
        with pytest.raises(ValueError):
            parse_value(kind, value_text(value))
        assert len(errors) == 1
    else:
        assert parse_value(kind, value_text(value)) == expected
        assert errors == []


@pytest.mark.parametrize("text, old_regex, alluxio", [
    ("2days", "accepted", REFUSED),
    ("10 min", "accepted", REFUSED),
    ("16 MB", "accepted", REFUSED),
    ("16MiB", "refused", 16 * 2 ** 20),
    ("1e3KB", "refused", 1024000),
])
def test_the_grammar_is_alluxios_not_the_old_regexes(text, old_regex, alluxio):
    """The hand-written regexes before the generated table took plurals and spaces, and refused
    binary units and exponents; FormatUtils does the opposite."""
    parse = parse_time_size if text.endswith(("days", "min")) else parse_space_size
    if alluxio is REFUSED:
        with pytest.raises(ValueError, match="Fail to parse %s" % text):
            parse(text)
    else:
        assert parse(text) == alluxio


@pytest.mark.parametrize("name, expected", NAMES)
def test_names_are_known_as_alluxio_knows_them(name, expected):
    assert property_type(java_trim(name)) == expected
    _unused, warnings = check_properties({name: "1"})
    assert bool(warnings) == (expected is None)


@pytest.mark.parametrize("name, value, _alluxio_reads", REFERENCES)
def test_values_with_references_are_left_alone(name, value, _alluxio_reads):
    assert check_properties({name: value}) == ([], [])


def test_a_reference_does_not_hide_an_unknown_name():
    assert check_properties({"alluxio.worker.hostnme": "${ALLUXIO_WORKER_HOSTNAME}"})[1] == [
        "properties[alluxio.worker.hostnme]: unknown Alluxio 2.9 property name (check the spelling; it is passed on as it is)"]


def test_python_booleans_and_yaml_numbers_are_read_as_their_strings():
    assert check_properties({"alluxio.web.ui.enabled": False, "alluxio.fuse.cached.paths.max": 1000000,
                             "alluxio.user.block.size.bytes.default": 16777216,
                             "alluxio.master.metastore.inode.cache.high.water.mark.ratio": 0.85}) == ([], [])
    assert check_properties({"alluxio.fuse.cached.paths.max": 1e6})[0] == [
        "properties[alluxio.fuse.cached.paths.max]=1000000.0 is not a whole number from -2147483648 to 2147483647 (a Java int)"]


def test_unknown_names_warn_and_pass():
    errors, warnings = check_properties({"alluxio.user.file.metadata.sync.intervall": "0"})
    assert errors == []
    assert warnings == ["properties[alluxio.user.file.metadata.sync.intervall]: unknown Alluxio 2.9 property name "
                        "(check the spelling; it is passed on as it is)"]


def test_deprecated_keys_warn_with_alluxios_message():
    errors, warnings = check_properties({"alluxio.worker.evictor.class": "x.Y", "alluxio.user.network.netty.channel": "NIO"})
    assert errors == []
    assert warnings == [
        "properties[alluxio.user.network.netty.channel]: deprecated in Alluxio 2.9.3",
        "properties[alluxio.worker.evictor.class]: deprecated in Alluxio 2.9.3: Use WORKER_BLOCK_ANNOTATOR_CLASS instead."]


@pytest.mark.parametrize("name", ["alluxio.user.client.cache.size", "alluxio.worker.page.store.sizes"])
def test_the_page_stores_size_lists_are_read_item_by_item(name):
    assert check_properties({name: "2000MB, 1GB,"}) == ([], [])
    assert len(check_properties({name: "2000MB,1 GB"})[0]) == 1


def test_the_table_is_alluxios_sorted_with_declared_enum_order():
    assert table.VERSION == "2.9.3"
    assert len(table.KEYS) > 800 and list(table.KEYS) == sorted(table.KEYS)
    assert list(table.ALIASES) == sorted(table.ALIASES) and set(table.ALIASES.values()) <= set(table.KEYS)
    assert set(table.DEPRECATED) <= set(table.KEYS)
    assert table.KEYS["alluxio.user.client.cache.store.type"] == "ENUM:alluxio.client.file.cache.store.PageStoreType"
    assert table.ENUMS["alluxio.client.file.cache.store.PageStoreType"] == ("LOCAL", "ROCKS", "MEM")
    enums = {kind[len("ENUM:"):] for kind in list(table.KEYS.values()) + [t[2] for t in table.TEMPLATES] if kind.startswith("ENUM:")}
    assert enums == set(table.ENUMS)


def test_every_template_example_resolves_to_its_template():
    examples = [(constant, kind, example) for constant, _unused, kind, example in table.TEMPLATES if example]
    assert len(examples) >= len(table.TEMPLATES) - 1  # RPC_EXECUTOR_KEEPALIVE's format does not match its pattern
    for constant, kind, example in examples:
        assert example not in table.KEYS, constant
        assert property_type(example) == ("STRING" if kind == "NESTED" else kind), constant


def test_filter_returns_errors_and_warnings():
    result = FilterModule().filters()["alluxio_property_check"]({"alluxio.user.client.cache.store.type": "MEMORY", "x.y": "1"}, "p")
    assert len(result["errors"]) == 1 and len(result["warnings"]) == 1
