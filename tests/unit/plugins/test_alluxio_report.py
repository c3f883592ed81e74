"""The standalone Alluxio cluster's state from `alluxio fsadmin report`, the master's REST API and
FUSE metrics. The report fixtures follow Alluxio 2.9's own SummaryCommand output."""

import json
import os

import pytest

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.report import ReportError, client_cache_metrics, parse_fsadmin_report, parse_master_info

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "alluxio")
GB = 1024 ** 3


def read(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def test_fsadmin_summary():
    report = parse_fsadmin_report(read("fsadmin-report.txt"))
    assert report["live_workers"] == 4 and report["lost_workers"] == 0
    assert report["capacity"] == {"total": 400 * GB, "used": int(143.67 * GB), "free": int(256.33 * GB)}
    assert report["tiers"] == {"MEM": {"total": 400 * GB, "used": int(143.67 * GB)}}
    assert report["version"] == "2.9.6" and report["safe_mode"] is False
    assert report["master_address"] == "alluxio-master-0:19998"


def test_fsadmin_two_tiers_and_a_lost_worker():
    report = parse_fsadmin_report(read("fsadmin-report-two-tiers-lost.txt"))
    assert report["lost_workers"] == 1 and report["live_workers"] == 3
    assert report["tiers"]["SSD"] == {"total": 450 * GB, "used": 0}
    assert report["tiers"]["MEM"]["used"] == int(1309.92 * 1024)


@pytest.mark.parametrize("text, message", [
    ("Error: Connection refused\n", "not the output of `alluxio fsadmin report`"),
    ("Alluxio cluster summary: \n    Live Workers: 4\n    Total Capacity: 1GB\n", "no 'Lost Workers' line"),
    ("Alluxio cluster summary: \n    Live Workers: four\n", "Live Workers: 'four' is not a count"),
    ("Alluxio cluster summary: \n    Live Workers: 1\n    Lost Workers: 0\n    Total Capacity: lots\n",
     "Total Capacity: 'lots' is not a size"),
])
def test_fsadmin_output_that_is_not_a_report(text, message):
    with pytest.raises(ReportError, match=message):
        parse_fsadmin_report(text)


def test_master_info_in_the_same_shape():
    report = parse_master_info(json.loads(read("master-info.json")))
    assert report["live_workers"] == 4 and report["lost_workers"] == 0
    assert report["capacity"] == {"total": 400 * GB, "used": 154264487854, "free": 400 * GB - 154264487854}
    assert report["tiers"]["MEM"]["total"] == 400 * GB
    assert [w["host"] for w in report["workers"]] == ["gpu-node-1", "gpu-node-2", "gpu-node-3", "gpu-node-4"]
    with pytest.raises(ReportError, match="not an Alluxio master info document"):
        parse_master_info({"error": "404"})


def test_client_cache_over_all_fuse_pods():
    documents = [json.loads(read(name)) for name in ("fuse-metrics-1.json", "fuse-metrics-2.json")]
    assert client_cache_metrics(documents) == {"bytes_read_cache": 9000, "bytes_requested_external": 3000, "hit_rate": 75.0}
    assert client_cache_metrics([json.loads(read("fuse-metrics-cache-off.json"))]) is None
