"""tools/bench/fluid_values.py: the runtimes whose values Fluid's controller writes for the data-path
bench are the bundle's own for each profile, with Alluxio's default ports; a profile that is not
built in is refused with the list; kept values are used without starting a cluster."""

import pytest

from bench import fluid_values

TIER = {"medium": "MEM", "path": "/ram/alluxio", "quota": "1Gi", "high": "0.95", "low": "0.7"}


def test_each_profile_s_runtime_is_the_bundle_s_with_alluxio_s_default_ports():
    dataset, runtime = fluid_values.runtime_objects("dl-training", TIER, {"alluxio.underfs.s3.endpoint.region": "us-east-1"})
    assert (dataset["kind"], runtime["kind"], runtime["metadata"]["name"]) == ("Dataset", "AlluxioRuntime", "bench-dl-training")
    assert runtime["spec"]["fuse"]["args"][1].startswith("--fuse-opts=kernel_cache"), runtime["spec"]["fuse"]
    assert runtime["spec"]["master"]["ports"] == {"rpc": 19998, "web": 19999}
    assert runtime["spec"]["master"]["jvmOptions"], runtime["spec"]["master"]  # the profile's, kept beside the ports
    assert runtime["spec"]["tieredstore"]["levels"][0]["path"] == "/ram/alluxio"


def test_a_profile_that_is_not_built_in_is_refused_with_the_list():
    with pytest.raises(SystemExit, match="dl-trainig is not a built-in tuning profile.*dl-training"):
        fluid_values.runtime_objects("dl-trainig", TIER, {})


def test_kept_values_need_no_cluster(tmp_path, monkeypatch):
    def no_cluster(*_args):
        raise AssertionError("a cluster was started")
    monkeypatch.setattr(fluid_values, "Cluster", no_cluster)
    with pytest.raises(AssertionError, match="a cluster was started"):  # nothing kept yet
        fluid_values.fluid_values(["fluid-defaults"], TIER, {}, str(tmp_path), str(tmp_path))
    kept = fluid_values.values_path("fluid-defaults", TIER, {}, str(tmp_path))
    with open(kept, "w", encoding="utf-8") as handle:
        handle.write("runtimeIdentity: {name: bench-fluid-defaults}\n")
    assert fluid_values.fluid_values(["fluid-defaults"], TIER, {}, str(tmp_path), str(tmp_path)) == {"fluid-defaults": kept}
    assert fluid_values.values_path("fluid-defaults", dict(TIER, quota="2Gi"), {}, str(tmp_path)) != kept  # another runtime's
