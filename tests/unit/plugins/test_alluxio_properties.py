"""Alluxio 2.9 property checks: enums, kinds, unknown names."""

import pytest

from ansible_collections.fluidops.accel.plugins.filter.alluxio import FilterModule
from ansible_collections.fluidops.accel.plugins.module_utils.alluxio_properties import check_properties

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


def test_seed_004_memory_store_type_is_refused_with_the_hint():
    errors, _ = check_properties({"alluxio.user.client.cache.store.type": "MEMORY"}, "alluxio_profile_overrides")
    assert errors == [
        "alluxio_profile_overrides[alluxio.user.client.cache.store.type]=MEMORY is not one of LOCAL, ROCKS, MEM; "
        "use MEM (seed 004 writes MEMORY, which Alluxio 2.9 rejects)"]


@pytest.mark.parametrize("name, value, allowed", [
    ("alluxio.fuse.jnifuse.enabled", "yes", '"true" or "false"'),
    ("alluxio.user.metadata.cache.max.size", "1e6", "a whole number"),
    ("alluxio.user.client.cache.page.size", "two megs", "an Alluxio size"),
    ("alluxio.user.metadata.cache.expiration.time", "forever", "a duration"),
    ("alluxio.master.metastore", "rocksdb", "HEAP, ROCKS"),
])
def test_bad_values_name_the_property_the_value_and_what_is_allowed(name, value, allowed):
    errors, warnings = check_properties({name: value})
    assert len(errors) == 1 and warnings == []
    assert errors[0].startswith("properties[%s]=%s is not " % (name, value))
    assert allowed in errors[0]


def test_python_booleans_are_accepted_for_bool_properties():
    assert check_properties({"alluxio.web.ui.enabled": False}) == ([], [])


def test_unknown_names_warn_and_pass():
    errors, warnings = check_properties({"alluxio.user.file.metadata.sync.intervall": "0"})
    assert errors == []
    assert warnings == ["properties[alluxio.user.file.metadata.sync.intervall]: unknown Alluxio 2.9 property name "
                        "(check the spelling; it is passed on as it is)"]


def test_filter_returns_errors_and_warnings():
    result = FilterModule().filters()["alluxio_property_check"]({"alluxio.user.client.cache.store.type": "MEMORY", "x.y": "1"}, "p")
    assert len(result["errors"]) == 1 and len(result["warnings"]) == 1
