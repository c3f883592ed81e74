"""The deployment benchmark's parts (tools/bench/deploy.py) that need no cluster: the inventory at
a size, the defaults config, the per-node growth, the goals and the report."""

import json
import os

import pytest
import yaml

from bench import deploy


def test_the_inventory_at_a_size_lists_every_node_and_reaches_the_four_hosts_by_turns(tmp_path, monkeypatch):
    # The hosts' addresses as cluster.sh up writes them for SSH.
    monkeypatch.setattr(deploy, "SSH", str(tmp_path / "ssh"))
    (tmp_path / "ssh").mkdir()
    for index in range(1, 5):
        (tmp_path / "ssh" / ("gpu-node-%d.address" % index)).write_text("10.88.0.%d\n" % (10 + index))
    directory = deploy.inventory_for(str(tmp_path), 6)
    with open(os.path.join(directory, "hosts.yml"), encoding="utf-8") as handle:
        hosts = yaml.safe_load(handle)["all"]["children"]["gpu_nodes"]["hosts"]
    assert list(hosts) == ["gpu-node-%d" % i for i in range(1, 7)]
    assert [hosts["gpu-node-%d" % i] for i in range(1, 5)] == [None] * 4
    assert hosts["gpu-node-5"] == {"ansible_host": "10.88.0.11"} and hosts["gpu-node-6"] == {"ansible_host": "10.88.0.12"}
    # The local inventory's settings (the real nodes'), copied.
    settings = os.path.join(directory, "group_vars", "all", "deployment.yml")
    with open(settings, encoding="utf-8") as handle:
        assert yaml.safe_load(handle)["datasets_list"][0]["mounts"][0]["mount_point"] == "s3://imagenet/"


def test_the_os_phase_inventory_lists_the_bench_hosts_by_name_alone(tmp_path):
    # Made before the hosts are: each one's address is read by the inventory when a playbook runs.
    directory = deploy.inventory_for(str(tmp_path), 0, name="hosts-2", named=["bench-host-1", "bench-host-2"])
    with open(os.path.join(directory, "hosts.yml"), encoding="utf-8") as handle:
        hosts = yaml.safe_load(handle)["all"]["children"]["gpu_nodes"]["hosts"]
    assert hosts == {"bench-host-1": None, "bench-host-2": None}


def test_the_defaults_config_drops_only_the_tuning_and_keeps_the_repositorys_paths(tmp_path):
    with open(deploy.defaults_config(str(tmp_path)), encoding="utf-8") as handle:
        text = handle.read()
    keys = {line.split("=", 1)[0].strip() for line in text.splitlines() if "=" in line and not line.startswith("#")}
    assert not keys & set(deploy.TUNING_KEYS) and "stdout_callback" in keys
    assert "collections_path = %s/.collections:" % deploy.REPO in text and "roles_path = %s/roles\n" % deploy.REPO in text


@pytest.mark.parametrize("text, message", [("4,x", "give node counts"), ("2,16", "at least 4")])
def test_bad_sizes_are_refused_naming_the_value(text, message):
    with pytest.raises(Exception) as refused:
        deploy.sizes_argument(text)
    assert message in str(refused.value) and text in str(refused.value)


def measure(median, requests=10, changed=0):
    result = {"seconds": median, "cpu_seconds": median / 2, "requests": requests, "changed": changed, "requests_by_verb": {"GET": requests}}
    return deploy.summarize([result, dict(result, seconds=median * 1.1), dict(result, seconds=median * 0.9)])


def size(nodes, cold, idempotent, status):
    return {"nodes": nodes, "cold": measure(cold, 100 + nodes), "idempotent": measure(idempotent, 20 + nodes), "status": measure(status, 3),
            "render": measure(5.0, 0)}


def test_growth_goals_and_the_report_come_from_the_medians(tmp_path):
    report = {"machine": "vm", "date": "2026-11-22", "commit": "abc1234", "runs": 3,
              "cluster": [size(4, 100.0, 20.0, 2.0), size(64, 220.0, 80.0, 4.0)],
              "os_phase": [{"hosts": 2, "cold": measure(60.0), "idempotent": measure(10.0)}],
              "tunings": [{"name": "batched node labels", "what": "one list", "nodes": 64, "tuned": measure(8.0, 2),
                           "defaults": measure(40.0, 128), "ratio": 0.2}]}
    report["per_node"] = {"cold_seconds": deploy.per_node(report["cluster"], "cold"),
                          "idempotent_seconds": deploy.per_node(report["cluster"], "idempotent"),
                          "status_seconds": deploy.per_node(report["cluster"], "status"),
                          "cold_requests": deploy.per_node(report["cluster"], "cold", "requests"),
                          "idempotent_requests": deploy.per_node(report["cluster"], "idempotent", "requests")}
    assert report["per_node"]["cold_seconds"] == 2.0 and report["per_node"]["idempotent_requests"] == 1.0
    goals = {row["goal"]: row for row in deploy.goals(report)}
    assert goals["idempotent <= 1/4 of cold at 4 nodes"]["value"] == 0.2 and goals["idempotent <= 1/4 of cold at 4 nodes"]["met"]
    assert goals["idempotent <= 1/4 of cold at 64 nodes"]["value"] == 0.36 and not goals["idempotent <= 1/4 of cold at 64 nodes"]["met"]
    assert goals["cluster phases (cold) at 64 nodes <= 2x at 4"]["value"] == 2.2
    assert not goals["status.yml < 3 s at 64 nodes"]["met"]
    report["goals"] = deploy.goals(report)
    report["growth_notes"] = deploy.growth_notes(report)
    text = deploy.markdown(report)
    assert text.startswith(deploy.MARK_BEGIN) and text.rstrip().endswith(deploy.MARK_END)
    assert "| 64 | **220.0** (198.0-242.0) | **80.0** (72.0-88.0) | **4.0** (3.6-4.4) |" in text
    assert "| batched node labels: one list | 64 | **8.0** (7.2-8.8) | **40.0** (36.0-44.0) | **0.20x** | 2 / 128 |" in text
    assert "Not measured" not in text
    # A section that failed is named in the report, which keeps what the others measured.
    failed = deploy.markdown(dict(report, os_phase=[], failed=["os_phase: bench: podman run failed"]))
    assert "**Not measured, as the section failed:** os_phase: bench: podman run failed" in failed and "| 64 | **220.0**" in failed
    deploy.chart(report, str(tmp_path / "deploy.png"))
    assert (tmp_path / "deploy.png").read_bytes().startswith(b"\x89PNG")


def test_the_slowest_tasks_and_the_failures_are_read_from_the_json_callback():
    def task(name, start, end, **hosts):
        return {"task": {"name": name, "duration": {"start": "2026-11-22T08:00:%02d.000000Z" % start,
                                                    "end": "2026-11-22T08:00:%02d.500000Z" % end}}, "hosts": hosts}
    document = {"plays": [{"tasks": [task("Read", 0, 1, localhost={"changed": False}),
                                     task("Wait until Bound", 1, 30, localhost={"failed": True, "msg": "Timed out after 29 s"}),
                                     task("Label", 30, 32, **{"gpu-node-1": {"unreachable": True, "msg": "no container"}})]}]}
    assert deploy.slowest_tasks(document, count=2) == [[29.5, "Wait until Bound"], [2.5, "Label"]]
    assert deploy.failures(document) == ["Wait until Bound [localhost]: Timed out after 29 s", "Label [gpu-node-1]: no container"]
    # A loop's failure says which items failed and why.
    looped = {"plays": [{"tasks": [task("Warm", 0, 9, localhost={"failed": True, "msg": "One or more items failed", "results": [
        {"failed": False, "msg": "imagenet: 100%"}, {"failed": True, "msg": "imagenet-b: 0% cached (NaN%) after the DataLoad"}]})]}]}
    assert deploy.failures(looped) == ["Warm [localhost]: One or more items failed; imagenet-b: 0% cached (NaN%) after the DataLoad"]
    # Only the task that reached a GPU host counts as the hosts' part.
    assert deploy.host_task_seconds(document) == 2.5


def test_a_run_of_several_playbooks_is_read_from_the_last_of_the_callbacks_documents():
    # ansible.posix.json prints a document at each playbook's end, each with every play and the stats so far.
    first = {"plays": [{"tasks": []}], "stats": {"localhost": {"changed": 2}}}
    last = {"plays": [{"tasks": []}, {"tasks": []}], "stats": {"localhost": {"changed": 3}, "gpu-node-1": {"changed": 1}}}
    text = "a warning with a { in it\n%s\n%s\n" % (json.dumps(first, indent=4), json.dumps(last, indent=4))
    assert deploy.last_document(text) == last
    assert deploy.last_document(json.dumps(first, indent=4)) == first
    assert deploy.last_document("no recap at all\n") == {}
