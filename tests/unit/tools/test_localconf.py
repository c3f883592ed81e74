"""tools/alluxio/localconf.py turns the objects of Fluid's runtime chart into the data-path bench's
host processes' settings. What it gives equals what Fluid's pods run with: tests/nodes checks that
against the live pods. Here: what it does beyond the chart (the host's differences), and what it
refuses, before any process starts."""

import subprocess

import pytest

from alluxio import localconf
from tools_module import run_module


def containers(fuse_env=None, master_args=("master-only", "--no-format"), worker_args=("worker-only", "--no-format")):
    spec = {name: {"name": name, "args": []} for name in localconf.CONTAINERS}
    spec["alluxio-master"]["args"] = list(master_args)
    spec["alluxio-master"]["volumeMounts"] = [{"name": "alluxio-journal", "mountPath": "/journal"}, {"name": "other", "mountPath": "/x"}]
    spec["alluxio-worker"]["args"] = list(worker_args)
    spec["alluxio-fuse"]["args"] = ["fuse", "--fuse-opts=kernel_cache,ro", "/runtime-mnt/alluxio/default/bench/alluxio-fuse", "/"]
    spec["alluxio-fuse"]["env"] = [{"name": "ALLUXIO_CLIENT_HOSTNAME", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}}] + [
        {"name": key, "value": value} for key, value in (fuse_env or {}).items()]
    return spec


def sourced(text, tmp_path, variable):
    path = tmp_path / "alluxio-env.sh"
    path.write_text(text)
    return subprocess.run(["bash", "-c", 'set +u; ALLUXIO_WORKER_HOSTNAME=10.0.0.9; . "$1"; echo "${!2}"', "-", str(path), variable],
                          check=True, capture_output=True, text=True).stdout.split()


def test_the_master_is_the_host_s_address_after_the_chart_s_dns_name_and_heaps_are_capped_last(tmp_path):
    config = {"ALLUXIO_JAVA_OPTS": "-Dalluxio.master.hostname=bench-master-0.default -Dalluxio.worker.hostname=${ALLUXIO_WORKER_HOSTNAME}",
              "ALLUXIO_WORKER_JAVA_OPTS": "-Xmx12G -XX:MaxDirectMemorySize=32g"}
    text = localconf.env_file(config, {"MAX_IDLE_THREADS": "32"}, "10.88.0.5")
    java = sourced(text, tmp_path, "ALLUXIO_JAVA_OPTS")
    assert java.index("-Dalluxio.master.hostname=10.88.0.5") > java.index("-Dalluxio.master.hostname=bench-master-0.default")
    assert "-Dalluxio.worker.hostname=10.0.0.9" in java  # the chart's reference, expanded as the entrypoint does
    worker = sourced(text, tmp_path, "ALLUXIO_WORKER_JAVA_OPTS")
    assert worker.index("-Xmx1g") > worker.index("-Xmx12G") and worker.index("-XX:MaxDirectMemorySize=1g") > worker.index("-XX:MaxDirectMemorySize=32g")
    assert sourced(text, tmp_path, "MAX_IDLE_THREADS") == ["32"]


def test_a_fuse_client_cache_in_memory_keeps_the_profile_s_heap(tmp_path):
    config = {"ALLUXIO_JAVA_OPTS": "-Dalluxio.user.client.cache.enabled=true -Dalluxio.user.client.cache.store.type=MEM",
              "ALLUXIO_FUSE_JAVA_OPTS": "-Xmx16G -Dalluxio.user.client.cache.size=2000MB"}
    fuse = sourced(localconf.env_file(config, {}, "10.88.0.5"), tmp_path, "ALLUXIO_FUSE_JAVA_OPTS")
    assert [word for word in fuse if word.startswith("-Xmx")] == ["-Xmx16G"], fuse
    assert localconf.client_cache_bytes(config) == 2000 * 1024 * 1024  # Alluxio's MB is binary


def test_the_layout_is_the_pods_tiers_journal_fuse_mount_and_web_port():
    values = {"master": {"ports": {"web": 19999}}, "journal": {"format": {"runFormat": False}},
              "tieredstore": {"levels": [{"path": "/ram/alluxio/default/bench,/ssd/default/bench"}]}}
    text = localconf.layout(values, containers())
    assert text.splitlines() == ["MASTER_WEB_PORT=19999", "FUSE_MOUNT=/runtime-mnt/alluxio/default/bench/alluxio-fuse",
                                 "TIER_PATHS='/ram/alluxio/default/bench /ssd/default/bench'", "JOURNAL_FOLDER=/journal",
                                 "FORMAT_JOURNAL=false", "FORMAT_WORKER=false"]
    formatted = localconf.layout(values, containers(master_args=["master-only"], worker_args=["worker-only"]))
    assert "FORMAT_JOURNAL=true" in formatted and "FORMAT_WORKER=true" in formatted


def test_two_containers_that_set_one_variable_differently_are_refused():
    spec = containers(fuse_env={"MAX_IDLE_THREADS": "32"})
    spec["alluxio-worker"]["env"] = [{"name": "MAX_IDLE_THREADS", "value": "64"}]
    with pytest.raises(SystemExit, match="MAX_IDLE_THREADS"):
        localconf.literal_env(spec)


def test_values_that_fluid_did_not_write_are_refused_before_helm_runs(tmp_path):
    values = tmp_path / "values.yaml"
    values.write_text("properties: {}\n")
    done = run_module("alluxio.localconf", "--values", str(values), "--out", str(tmp_path / "out"),
                      "--master-host", "10.88.0.5", "--helm", "/nonexistent/helm", "--chart", "/nonexistent/chart")
    assert done.returncode != 0 and "has no runtimeIdentity.name" in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
