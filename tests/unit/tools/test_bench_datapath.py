"""The data-path benchmark's parts (tools/bench): the throttle passes bytes intact and never
faster than its delay and rate allow (lower bounds only: a loaded machine is slower, never
faster), the reader reads a directory and refuses a short file, and the report's arithmetic."""

import asyncio
import json
import os
import subprocess
import sys
import time

import pytest

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools", "bench")
sys.path.insert(0, BENCH)
import datapath  # noqa: E402  pylint: disable=wrong-import-position
import report  # noqa: E402  pylint: disable=wrong-import-position
import throttle  # noqa: E402  pylint: disable=wrong-import-position


async def echo_through_throttle(payload, delay, rate):
    """Sends payload to an echo server through the throttle; (echoed bytes, seconds)."""
    async def echo(reader, writer):
        writer.write(await reader.read(-1))
        await writer.drain()
        writer.close()

    upstream = await asyncio.start_server(echo, "127.0.0.1", 0)
    target = upstream.sockets[0].getsockname()[:2]

    proxy = await asyncio.start_server(lambda r, w: throttle.relay(r, w, target, delay, throttle.Bucket(rate)), "127.0.0.1", 0)
    reader, writer = await asyncio.open_connection(*proxy.sockets[0].getsockname()[:2])
    began = time.monotonic()
    writer.write(payload)
    writer.write_eof()
    echoed = await reader.read(-1)
    seconds = time.monotonic() - began
    writer.close()
    proxy.close()
    upstream.close()
    return echoed, seconds


def test_the_throttle_passes_every_byte_and_holds_a_round_trip_for_twice_its_delay():
    payload = os.urandom(200_000)
    echoed, seconds = asyncio.run(echo_through_throttle(payload, 0.05, 1e9))
    assert echoed == payload
    assert seconds >= 0.1


def test_the_throttle_keeps_replies_under_its_rate():
    payload = os.urandom(2 * 1024 * 1024)
    echoed, seconds = asyncio.run(echo_through_throttle(payload, 0.0, 4 * 1024 * 1024))
    assert echoed == payload
    # 2 MiB at 4 MiB/s is 0.5 s; the bucket lets 50 ms of rate through at once at most.
    assert seconds >= 0.5 - 0.05


def run_reader(tmp_path, index_lines, threads=3):
    index = tmp_path / "index"
    index.write_text("".join("%d %s\n" % line for line in index_lines))
    return subprocess.run([sys.executable, os.path.join(BENCH, "reader.py"), "--index", str(index), "--threads", str(threads),
                           "--root", str(tmp_path / "data")], capture_output=True, text=True, check=False)


def test_the_reader_reads_every_file_of_its_index_once(tmp_path):
    sizes = {"a/1.JPEG": 110_000, "a/2.JPEG": 40_000, "shards/train-0": 3 * 1024 * 1024 + 5}
    for name, size in sizes.items():
        (tmp_path / "data" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "data" / name).write_bytes(os.urandom(size))
    done = run_reader(tmp_path, [(size, name) for name, size in sizes.items()])
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["bytes"] == sum(sizes.values()) and result["files"] == 3 and result["seconds"] > 0


def test_the_reader_refuses_a_file_shorter_than_its_index_says(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "short.JPEG").write_bytes(b"x" * 100)
    done = run_reader(tmp_path, [(110_000, "short.JPEG")], threads=1)
    assert done.returncode == 1
    assert "short.JPEG: read 100 bytes, expected 110000" in done.stderr


def test_fuse_options_are_taken_out_one_at_a_time():
    args = "--fuse-opts=kernel_cache,ro,attr_timeout=7200,entry_timeout=7200\n/mnt/alluxio-fuse\n/\n"
    assert datapath.without_options("kernel_cache")(args) == "--fuse-opts=ro,attr_timeout=7200,entry_timeout=7200\n/mnt/alluxio-fuse\n/\n"
    assert datapath.without_options("attr_timeout", "entry_timeout")(args).splitlines()[0] == "--fuse-opts=kernel_cache,ro"


def case(name, small, shards):
    return {"name": name, "summary": {"small": {"median_mib_s": small}, "shards": {"median_mib_s": shards}}}


def test_goals_are_ratios_of_medians_and_say_which_are_missed():
    cases = [case("direct ramfs", 1000, 2000), case("remote store (S3, throttled)", 50, 60),
             case("Alluxio warm (dl-training)", 850, 900), case("Alluxio warm (fluid-defaults)", 100, 800),
             case("Alluxio warm (dl-training), 2nd epoch", 900, 1000), case("Alluxio warm (fluid-defaults), 2nd epoch", 450, 900)]
    rows = {row["goal"]: row for row in datapath.goals(cases)}
    assert rows["warm >= 0.8x direct ramfs (small)"] == {"goal": "warm >= 0.8x direct ramfs (small)", "target": 0.8, "ratio": 0.85, "met": True}
    assert rows["warm >= 0.8x direct ramfs (shards)"]["ratio"] == 0.45 and not rows["warm >= 0.8x direct ramfs (shards)"]["met"]
    assert rows["warm >= 5x the throttled store (shards)"]["ratio"] == 15.0
    assert rows["dl-training >= 3x defaults, warm small files"]["ratio"] == 8.5
    assert not rows["dl-training >= 3x defaults, 2nd epoch small files"]["met"]


def test_summary_gives_median_and_spread():
    results = [{"mib_s": m, "files_s": m * 10, "seconds": 2.0, "fuse_cpu_s": 1.0, "files": 400} for m in (30.0, 10.0, 20.0)]
    assert datapath.summary(results) == {"runs": 3, "median_mib_s": 20.0, "min_mib_s": 10.0, "max_mib_s": 30.0,
                                         "median_files_s": 200.0, "machine_busy": 0.0, "fuse_cores": 0.5, "fuse_cpu_ms_per_file": 2.5}


@pytest.mark.parametrize("before", ["# Benchmarks\n\nintro\n", "# Benchmarks\n\n<!-- datapath:begin -->\nold\n<!-- datapath:end -->\n\n## Bundle\nkept\n"])
def test_the_report_section_replaces_only_its_own(tmp_path, before):
    path = tmp_path / "benchmarks.md"
    path.write_text(before)
    section = "<!-- datapath:begin -->\nnew\n<!-- datapath:end -->\n"
    report.write_document(str(path), section, datapath.MARK_BEGIN, datapath.MARK_END)
    text = path.read_text()
    assert text.count("<!-- datapath:begin -->") == 1 and "new" in text and "old" not in text
    assert ("kept" in text) == ("kept" in before) and text.startswith("# Benchmarks")


def full_case(name, small, shards):
    results = {w: [{"mib_s": m, "files_s": m * 9, "seconds": 1.0, "files": 100, "machine_busy": 0.5} for m in (v, v * 1.1)]
               for w, v in (("small", small), ("shards", shards))}
    return {"name": name, "results": results, "summary": {w: datapath.summary(r) for w, r in results.items()}}


def test_the_report_shows_a_failed_variant_and_what_bounds_each_missed_goal():
    cases = [full_case("direct ramfs", 4000, 12000), full_case("remote store (S3, throttled)", 30, 64),
             full_case("Alluxio warm (fluid-defaults)", 40, 700), full_case("Alluxio warm (fluid-defaults), 2nd epoch", 50, 900),
             full_case("Alluxio warm (dl-training)", 60, 1000), full_case("Alluxio warm (dl-training), 2nd epoch", 1400, 4700),
             {"name": "dl-training with the client cache", "error": "reader: x.JPEG: read 0 bytes, expected 10"}]
    report = {"machine": "m", "date": "d", "commit": "c", "alluxio": "2.9.3", "java": "j", "runs": 2, "cpus": 2,
              "dataset": "ds", "readers": "r", "store": "versitygw: 10 ms one-way delay, 64 MiB/s", "load_seconds": {"dl-training": 20},
              "local_cluster_up": False, "cases": cases, "goals": datapath.goals([c for c in cases if "summary" in c]),
              "fluid": "v1.0.8", "short_circuit": "on, policy local", "differences": ["the ports", "heaps"]}
    text = datapath.markdown(report)
    assert "configured as Fluid v1.0.8 configures them" in text and "Short-circuit reads as Fluid set them: on, policy local." in text
    assert "Where the processes still differ from Fluid's pods: the ports; heaps." in text
    assert "| dl-training with the client cache | failed: reader: x.JPEG: read 0 bytes, expected 10 | | | | | | |" in text
    assert "| warm >= 0.8x direct ramfs (small) | 0.01x | **no** |" in text
    assert "cores were only 50% busy, so the bound is the wait in these round trips" in text
    assert "the throttled store gives 31.5 MiB/s on small files" in text
    assert "on a new mount's first epoch the profile gives 1.50x the defaults" in text
