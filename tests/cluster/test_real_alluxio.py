"""The local cluster's REAL Alluxio (2.9.3 from Maven Central's jars, tools/localcluster/alluxio.sh):
a master and two workers in the node hosts, MEM tier on the gpu_node role's ramfs, JNI-FUSE
mounted on both hosts, configured from the dl-training profile through the Alluxio chart."""

import hashlib
import json
import os
import re
import subprocess
import time

import pytest
import yaml

from conftest import RUN, wait_until
from playbook import run_playbook

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STATE = os.path.join(RUN, "alluxio")
HOSTS = ["gpu-node-1", "gpu-node-2"]
SETTLED = os.path.join(RUN, "simulated", "clients-settled")


def settled_since(moment):
    try:
        with open(SETTLED, encoding="utf-8") as handle:
            return float(handle.read()) > moment
    except (OSError, ValueError):
        return False


@pytest.fixture(scope="module", autouse=True)
def settled_clients(kubeconfig):
    """The tests before these delete runtimes, and the simulator then restarts the shared Alluxio's
    FUSE and job service in the background (alluxio.sh renew-clients): wait until a simulator pass
    begun after now finds no renewal to start or wait for."""
    since = time.time()
    wait_until(lambda: settled_since(since), seconds=300)


def master_ip():
    with open(os.path.join(STATE, "up"), encoding="utf-8") as handle:
        return handle.read().strip()


def master_info():
    """GET /api/v1/master/info from the real master."""
    return json.loads(subprocess.run(["curl", "-sf", "http://%s:19999/api/v1/master/info" % master_ip()],
                                     capture_output=True, text=True, check=True).stdout)


def cli(*args):
    """The real alluxio CLI on this machine, as the kwok Execs run it."""
    client = subprocess.run([os.path.join(REPO, "tools", "localcluster", "alluxio.sh"), "env"],
                            capture_output=True, text=True, check=True).stdout
    env = dict(os.environ, **dict(line.split("=", 1) for line in client.splitlines()))
    return subprocess.run([os.path.join(REPO, "tools", "alluxio", "bin", "alluxio"), *args],
                          capture_output=True, text=True, check=True, env=env).stdout


def host_ip(host):
    return subprocess.run(["podman", "container", "inspect", "-f", "{{.NetworkSettings.IPAddress}}", host],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_real_alluxio_serves_the_root_ufs_through_jni_fuse_on_both_hosts(kubeconfig):
    tree = os.path.join(STATE, "ufs", "smoke")
    os.makedirs(tree, exist_ok=True)
    sums = {}
    for index in range(20):
        data = os.urandom(110 * 1024)  # ImageNet's mean JPEG size
        with open(os.path.join(tree, "img-%03d.jpg" % index), "wb") as handle:
            handle.write(data)
        sums["img-%03d.jpg" % index] = hashlib.md5(data).hexdigest()
    for host in HOSTS:
        out = subprocess.run(["podman", "exec", host, "sh", "-c", "cd /mnt/alluxio-fuse/smoke && md5sum *"],
                             capture_output=True, text=True, check=True).stdout
        assert dict(reversed(line.split()) for line in out.splitlines()) == sums, host
    # The reads went through Alluxio's cache (read type CACHE): the master counts the bytes.

    def used():
        info = master_info()
        return info["capacity"]["used"] >= 20 * 110 * 1024 and info
    info = wait_until(used, seconds=60)
    assert sorted(w["address"]["host"] for w in info["workers"]) == sorted(host_ip(h) for h in HOSTS)
    assert info["version"] == "2.9.3"


def test_the_profiles_fuse_options_and_tier_reach_the_processes():
    # What the chart made of dl-training (tools/alluxio/localconf.py), as the processes run it.
    for host in HOSTS:
        options = subprocess.run(["podman", "exec", host, "findmnt", "-n", "-o", "OPTIONS", "/mnt/alluxio-fuse"],
                                 capture_output=True, text=True, check=True).stdout
        assert "ro," in options and "allow_other" in options, options
        workers = subprocess.run(["podman", "exec", host, "sh", "-c", "tr '\\0' ' ' < /proc/$(cat /opt/alluxio/state/logs/%s/worker.pid)/cmdline" % host],
                                 capture_output=True, text=True, check=True).stdout
        assert "-Dalluxio.worker.tieredstore.level0.dirs.path=/ram/alluxio" in workers
        assert "-Dalluxio.user.metadata.cache.enabled=true" in workers
        fuse = subprocess.run(["podman", "exec", host, "sh", "-c", "tr '\\0' ' ' < /proc/$(cat /opt/alluxio/state/logs/%s/fuse.pid)/cmdline" % host],
                              capture_output=True, text=True, check=True).stdout
        assert re.search(r"-o allow_other,kernel_cache,ro,max_read=131072,attr_timeout=7200,entry_timeout=7200", fuse), fuse
        # The tier is the ramfs the gpu_node role mounted.
        mount = subprocess.run(["podman", "exec", host, "findmnt", "-n", "-o", "FSTYPE", "/ram/alluxio"],
                               capture_output=True, text=True, check=True).stdout.strip()
        assert mount == "ramfs"


def fsadmin_summary():
    """The master's own report, read here with its own words (not the module's parser)."""
    text = cli("fsadmin", "report", "summary")
    field = {k.strip(): v.strip() for k, v in (line.split(":", 1) for line in text.splitlines() if ":" in line)}
    units = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}

    def size(text):
        number, unit = re.match(r"([0-9.]+)([KMGT]?B)", text).groups()
        return int(float(number) * units[unit])
    return {"total": size(field["Total Capacity"]), "live": int(field["Live Workers"]), "lost": int(field["Lost Workers"]),
            "version": field["Version"]}


def test_cluster_info_reads_the_live_master_as_its_own_report_says(tmp_path):
    path = tmp_path / "play.yml"
    urls = ["http://%s:49999" % host_ip(h) for h in HOSTS]
    path.write_text(yaml.safe_dump([{"hosts": "localhost", "gather_facts": False, "tasks": [
        {"fluidops.accel.alluxio_cluster_info": {"kubeconfig": "{{ fluidops_kubeconfig }}", "master_url": "http://%s:19999" % master_ip(),
                                                 "client_cache": True, "fuse_urls": urls},
         "register": "info"},
        {"ansible.builtin.copy": {"content": "{{ info | to_json }}", "dest": str(tmp_path / "info.json"), "mode": "0600"}}]}]))
    returncode, output = run_playbook(str(path))
    assert returncode == 0, output[-3000:]
    info = json.loads((tmp_path / "info.json").read_text())
    report = fsadmin_summary()
    assert (info["capacity"]["total"], info["live_workers"], info["lost_workers"], info["version"]) == (
        report["total"], report["live"], report["lost"], report["version"])
    assert info["tiers"]["MEM"]["total"] == report["total"]
    # dl-training keeps the client page cache off: both FUSE processes answered, none has a cache.
    assert info["fuse_pods"] == 2 and info["client_cache"] is None
