"""make bench: the bundle's own speed on the local cluster, and how it grows with the nodes. A
benchmark command, not a test: each measure several times, median and min-max.

On the local cluster's real nodes, grown to 4, 16 and 64 GPU nodes: the four node hosts' real nodes
and, beyond them, kwok's simulated ones (`cluster.sh nodes COUNT`), which carry kwok's NoSchedule
taint and the virtual-kubelet label Fluid's controllers keep off, so that Fluid's pods and the
warm-up's loader run on the real four (only the DaemonSets' pods go to the simulated ones):
- cold: site.yml's cluster phases up to the warm-up (preflight, node labels, the engine through
  Helm, the datasets, the warm-up) on a cluster where none of it is deployed (teardown.yml, and
  the nodes' labels, taints and annotations taken back). The OS phase (nodes.yml) is left out
  here: the node hosts stay four podman containers at every size, so it is measured apart;
- idempotent: the same playbooks again, which must change nothing;
- status.yml;
- render (playbooks/render.yml), which needs no cluster.
The inventory lists every node as a GPU host; hosts 5 and up reach one of the four containers
(ansible_host), so preflight's checks of each host run for each of them, as on a real cluster.

The OS phase, nodes.yml, is measured on 2 and 4 fresh host containers: cold, then idempotent.

Every run of the cluster phases goes through tools/localcluster/apiproxy.py, which counts the
API requests (Helm's included) by method and path: per run and per node. Each tuning is then
measured side by side, in the same run, against the defaults it replaces: see TUNINGS.

Writes docs/benchmarks.md (between its deploy markers), docs/benchmarks/deploy.json and
docs/benchmarks/deploy.png, with the machine, the date and the commit.
"""

import argparse
import collections
import datetime
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

from bench.report import REPO, machine, publish, spread
from localcluster.apiproxy import ApiProxy

CACHE = os.environ.get("FLUIDOPS_CACHE_DIR", os.path.expanduser("~/.cache/fluidops"))
LOCAL = os.path.join(CACHE, "localcluster")
CLUSTER = os.path.join(REPO, "tools", "localcluster", "cluster.sh")
HOSTS = ("gpu-node-1", "gpu-node-2", "gpu-node-3", "gpu-node-4")  # the local cluster's node host containers
SSH = os.path.join(LOCAL, "run", "ssh")  # where cluster.sh keeps each host's address (the local inventory reads it)
# site.yml's phases up to the warm-up, the OS phase (nodes.yml) apart.
CLUSTER_PHASES = ["playbooks/preflight.yml", "playbooks/node_labels.yml", "playbooks/engine.yml", "playbooks/datasets.yml",
                  "playbooks/warmup.yml"]
# The labels the kubelets and cluster.sh give the nodes, and kwok's taint on the simulated ones:
# the cold reset keeps them.
CLUSTER_LABELS = {"kubernetes.io/arch", "kubernetes.io/os", "kubernetes.io/hostname", "beta.kubernetes.io/arch",
                  "beta.kubernetes.io/os", "node.kubernetes.io/instance-type", "aliyun.accelerator/nvidia_name", "type"}
CLUSTER_TAINTS = {"kwok.x-k8s.io/node"}
MARK_BEGIN, MARK_END = "<!-- deploy:begin -->", "<!-- deploy:end -->"
# ansible.cfg's tuning keys: the "defaults" config is the project's without them (Ansible's own
# defaults: forks 5, implicit fact gathering, no fact cache, no pipelining).
TUNING_KEYS = ("forks", "gathering", "fact_caching", "pipelining")
# The commits before a change, measured against it: the node labels before they were batched (one
# get and one patch per host then); the CRDs before their fingerprint (every CRD applied on every run).
UNBATCHED_LABELS_COMMIT = "19db759"
UNFINGERPRINTED_CRDS_COMMIT = "8f9b9b3"


def log(message):
    print("[bench] %s" % message, file=sys.stderr, flush=True)


def run(command, env=None, check=True):
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if check and done.returncode:
        raise SystemExit("bench: %s failed (exit %d): %s" % (" ".join(command), done.returncode, (done.stderr or done.stdout)[-3000:]))
    return done


class Bench:
    def __init__(self, work, runs):
        self.work, self.runs = work, runs
        self.direct_kubeconfig = run([CLUSTER, "kubeconfig"]).stdout.strip()
        self.kubeconfig = os.path.join(work, "kubeconfig")
        self.proxy = ApiProxy.in_front_of(self.direct_kubeconfig, os.path.join(LOCAL, "run", "pki"), self.kubeconfig)
        self.configs = {"tuned": os.path.join(REPO, "ansible.cfg"), "defaults": defaults_config(work)}

    def playbook(self, playbooks, inventory, extra_vars=None, config="tuned", project=REPO, env=None):
        """One ansible-playbook run: {seconds, cpu_seconds (Ansible's own processes), requests,
        changed, failed, rc}."""
        variables = dict(extra_vars or {}, fluidops_kubeconfig=self.kubeconfig)
        environment = dict(os.environ, ANSIBLE_CONFIG=self.configs.get(config, config), ANSIBLE_STDOUT_CALLBACK="ansible.posix.json",
                           ANSIBLE_NOCOLOR="1", **(env or {}))
        # The copy of the repository (an older commit) resolves its own collection, not this one.
        environment["ANSIBLE_COLLECTIONS_PATH"] = os.path.join(project, ".collections")
        before_requests, before_cpu = len(self.proxy.requests), resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        done = subprocess.run(["ansible-playbook", "-i", inventory, "-e", json.dumps(variables), *playbooks], cwd=project,
                              env=environment, capture_output=True, text=True, check=False)
        seconds = time.monotonic() - started
        after_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        requests = self.proxy.requests[before_requests:]
        document = last_document(done.stdout)
        stats = document.get("stats", {})
        result = {"seconds": round(seconds, 2), "rc": done.returncode, "slowest_tasks": slowest_tasks(document),
                  "host_task_seconds": host_task_seconds(document),
                  "cpu_seconds": round(after_cpu.ru_utime + after_cpu.ru_stime - before_cpu.ru_utime - before_cpu.ru_stime, 2),
                  "requests": len(requests), "requests_by_verb": dict(collections.Counter(method for method, _unused in requests)),
                  "changed": sum(host.get("changed", 0) for host in stats.values()),
                  "failed": sum(host.get("failures", 0) + host.get("unreachable", 0) for host in stats.values())}
        if done.returncode:
            raise SystemExit("bench: %s failed (exit %d): %s" % (" ".join(playbooks), done.returncode,
                                                                 "; ".join(failures(document)) or (done.stdout + done.stderr)[-4000:]))
        return result

    def repeat(self, what, measure):
        """The summary of ``runs`` repetitions of ``measure``."""
        results = []
        for index in range(self.runs):
            results.append(measure())
            log("%s, run %d/%d: %.1f s, %d API requests, changed=%d" % (
                what, index + 1, self.runs, results[-1]["seconds"], results[-1]["requests"], results[-1]["changed"]))
        return summarize(results)


def last_document(text):
    """The run's ansible.posix.json document: the callback prints one per playbook of the command
    line, each holding every play so far and the stats so far, so the last one is the whole run.
    {} when there is none (a run that failed before its first recap)."""
    decoder, document, index = json.JSONDecoder(), {}, 0
    text = "\n" + text  # each document starts a line
    while True:
        index = text.find("\n{", index)
        if index < 0:
            return document
        try:
            document, index = decoder.raw_decode(text, index + 1)
        except ValueError:
            index += 2


def _task_results(document):
    """(task name, seconds, {host: result}) of each task of an ansible.posix.json document."""
    for play in document.get("plays", []):
        for task in play.get("tasks", []):
            duration = task["task"].get("duration") or {}
            try:
                seconds = (datetime.datetime.fromisoformat(duration["end"].rstrip("Z"))
                           - datetime.datetime.fromisoformat(duration["start"].rstrip("Z"))).total_seconds()
            except (KeyError, ValueError):
                seconds = 0.0
            yield task["task"]["name"], seconds, task.get("hosts", {})


def slowest_tasks(document, count=8):
    """The run's slowest tasks, [seconds, name], by wall time (all hosts of the task)."""
    return [[round(seconds, 1), name] for name, seconds, _unused in sorted(_task_results(document), key=lambda t: -t[1])[:count]]


def host_task_seconds(document, controller="localhost"):
    """The wall seconds of the tasks that ran on the GPU hosts (any host but the controller): the
    part of a run that grows with the hosts Ansible reaches, as the API's part grows with requests."""
    return round(sum(seconds for _name, seconds, hosts in _task_results(document) if set(hosts) - {controller}), 1)


def failures(document):
    """Each failed result of a run: "task [host]: message", with the messages of its failed loop
    items (a loop's own message is only "One or more items failed")."""
    return ["%s [%s]: %s" % (name, host, _message(result)) for name, _unused, hosts in _task_results(document)
            for host, result in hosts.items() if result.get("failed") or result.get("unreachable")]


def _message(result):
    items = [str(item.get("msg", "")) for item in result.get("results") or [] if isinstance(item, dict) and item.get("failed")]
    return "; ".join([str(result.get("msg", ""))] + items)[:1500]


def summarize(results):
    """The runs of one measure: median and min-max of their seconds, CPU seconds and requests."""
    return {"seconds": spread([r["seconds"] for r in results]), "cpu_seconds": spread([r["cpu_seconds"] for r in results]),
            "requests": spread([r["requests"] for r in results]), "changed": [r["changed"] for r in results], "results": results,
            "slowest_tasks": results[0].get("slowest_tasks", [])}


def defaults_config(work):
    """The project's ansible.cfg without its tuning keys (TUNING_KEYS), written into ``work``."""
    path = os.path.join(work, "ansible-defaults.cfg")
    with open(os.path.join(REPO, "ansible.cfg"), encoding="utf-8") as source, open(path, "w", encoding="utf-8") as target:
        for line in source:
            if line.split("=", 1)[0].strip() not in TUNING_KEYS:
                # Its relative paths are the repository's, not this file's directory's.
                line = re.sub(r"^collections_path = \.collections", "collections_path = " + os.path.join(REPO, ".collections"), line)
                target.write(re.sub(r"^roles_path = roles$", "roles_path = " + os.path.join(REPO, "roles"), line))
    return path


def address(host):
    """A host container's address, as cluster.sh wrote it for SSH."""
    with open(os.path.join(SSH, host + ".address"), encoding="ascii") as handle:
        return handle.read().strip()


def inventory_for(work, count, name=None, named=None):
    """The local inventory with ``count`` GPU hosts gpu-node-1..count: the four hosts' own reach
    their containers, the others one of them by turns (ansible_host: its address). With ``named``,
    the GPU hosts are those host containers instead, each reached at the address the inventory
    reads for its name."""
    directory = os.path.join(work, name or "inventory-%d" % count)
    if os.path.isdir(directory):
        shutil.rmtree(directory)
    shutil.copytree(os.path.join(REPO, "inventory", "local"), directory)
    path = os.path.join(directory, "hosts.yml")
    with open(path, encoding="utf-8") as handle:
        inventory = yaml.safe_load(handle)
    gpu = inventory["all"]["children"]["gpu_nodes"]
    gpu["hosts"] = {name: None for name in named or ()}
    for index in range(count):
        node = "gpu-node-%d" % (index + 1)
        gpu["hosts"][node] = None if node in HOSTS else {"ansible_host": address(HOSTS[index % len(HOSTS)])}
    with open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(inventory, handle)
    return directory


def reset_to_cold(bench, inventory):
    """What the cluster phases deploy, taken away: teardown.yml (datasets, Secrets, PVs, the Fluid
    release; its CRDs stay, as Helm leaves them), and every node's labels, taints and annotations
    but cluster.sh's own."""
    bench.playbook(["playbooks/teardown.yml"], inventory)
    from kubernetes import client, config

    api = client.CoreV1Api(config.new_client_from_config(config_file=bench.direct_kubeconfig))
    for node in api.list_node().items:
        labels = {key: None for key in node.metadata.labels or {} if key not in CLUSTER_LABELS}
        annotations = {key: None for key in node.metadata.annotations or {} if key.startswith("fluidops.io/")}
        kept = [api.api_client.sanitize_for_serialization(taint) for taint in node.spec.taints or [] if taint.key in CLUSTER_TAINTS]
        if labels or annotations or len(kept) != len(node.spec.taints or []):
            api.patch_node(node.metadata.name, {"metadata": {"labels": labels, "annotations": annotations}, "spec": {"taints": kept or None}})


def cluster_phases(bench, sizes):
    rows = []
    for count in sizes:
        run([CLUSTER, "nodes", str(count)])
        inventory = inventory_for(bench.work, count)
        log("%d nodes: cold and idempotent runs of the cluster phases, status, render" % count)
        row = {"nodes": count}
        cold, idempotent = [], []
        for index in range(bench.runs):
            reset_to_cold(bench, inventory)
            cold.append(bench.playbook(CLUSTER_PHASES, inventory))
            idempotent.append(bench.playbook(CLUSTER_PHASES, inventory))
            log("%d nodes, run %d/%d: cold %.1f s (%d requests), idempotent %.1f s (%d requests, changed=%d)" % (
                count, index + 1, bench.runs, cold[-1]["seconds"], cold[-1]["requests"], idempotent[-1]["seconds"],
                idempotent[-1]["requests"], idempotent[-1]["changed"]))
        row["cold"], row["idempotent"] = summarize(cold), summarize(idempotent)
        row["status"] = bench.repeat("%d nodes, status.yml" % count,
                                     lambda inventory=inventory: bench.playbook(["playbooks/status.yml"], inventory))
        render_vars = {"fluidops_render_dir": os.path.join(bench.work, "render-%d" % count)}
        row["render"] = bench.repeat("%d nodes, render" % count, lambda inventory=inventory, render_vars=render_vars: bench.playbook(
            ["playbooks/render.yml"], inventory, render_vars))
        rows.append(row)
    return rows


def os_phase(bench, host_counts, image):
    """nodes.yml on fresh host containers (bench-host-N): cold, then again (idempotent)."""
    rows = []
    names = ["bench-host-%d" % (index + 1) for index in range(max(host_counts))]

    def fresh_hosts(count):
        run(["podman", "rm", "--force", "--ignore", "--time", "0", *names], check=False)
        for name in names[:count]:
            run(["podman", "run", "-d", "--name", name, "--hostname", name, "--privileged", image])
        run([CLUSTER, "ssh", *names[:count]])  # reached over SSH as the nodes' hosts are

    try:
        for count in host_counts:
            # Their addresses are read when the playbook runs: fresh_hosts has cluster.sh write them.
            inventory = inventory_for(bench.work, 0, name="hosts-%d" % count, named=names[:count])
            cold, idempotent = [], []
            for _run in range(bench.runs):
                fresh_hosts(count)
                cold.append(bench.playbook(["playbooks/nodes.yml"], inventory))
                idempotent.append(bench.playbook(["playbooks/nodes.yml"], inventory))
            log("OS phase on %d hosts: cold %s s, idempotent %s s" % (
                count, spread([r["seconds"] for r in cold])["median"], spread([r["seconds"] for r in idempotent])["median"]))
            rows.append({"hosts": count, "cold": summarize(cold), "idempotent": summarize(idempotent)})
    finally:
        run(["podman", "rm", "--force", "--ignore", "--time", "0", *names], check=False)
    return rows


def checkout(work, commit):
    """This repository at ``commit``, extracted (git archive) beside the run."""
    directory = os.path.join(work, "at-" + commit)
    os.makedirs(directory)
    archive = subprocess.run(["git", "-C", REPO, "archive", commit], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", directory], input=archive, check=True)
    return directory


def tunings(bench, count):
    """Each tuning against the defaults it replaces, side by side (alternating runs), at ``count``
    nodes, on the idempotent run of the playbooks it concerns: {name, what, tuned, defaults, ratio}."""
    run([CLUSTER, "nodes", str(count)])
    inventory = inventory_for(bench.work, count)
    reset_to_cold(bench, inventory)
    bench.playbook(CLUSTER_PHASES, inventory)  # converged: every run below is a second one
    unbatched, unfingerprinted = checkout(bench.work, UNBATCHED_LABELS_COMMIT), checkout(bench.work, UNFINGERPRINTED_CRDS_COMMIT)
    # The older engine.yml knows no fluidops_image_registry: given the release's values as they
    # are, it renders the same release, so that its run too changes nothing (and the pods keep
    # their images from the local registry).
    released = json.loads(run([os.path.join(LOCAL, "helm"), "get", "values", "fluid", "-n", "fluid-system", "-o", "json",
                               "--kubeconfig", bench.direct_kubeconfig]).stdout)
    cases = [
        ("ansible.cfg tuning", "the project's ansible.cfg (forks 10, smart gathering with a memory fact cache) "
         "against the same file without those keys (Ansible's defaults)", CLUSTER_PHASES,
         dict(config="tuned"), dict(config="defaults")),
        ("SSH pipelining", "each module sent through the host's open SSH connection (ansible_pipelining, inventory/local) "
         "against copied to the host first, then run (Ansible's default)", CLUSTER_PHASES,
         dict(), dict(extra_vars={"ansible_pipelining": False})),
        ("batched node labels", "node_labels.yml: one list of the nodes and a patch for each that differs "
         "(gpu_node_labels) against a get and a patch per host (kubernetes.core, commit %s)" % UNBATCHED_LABELS_COMMIT,
         ["playbooks/node_labels.yml"], dict(), dict(project=unbatched)),
        ("CRD fingerprint", "engine.yml: the chart's CRDs applied only where their fingerprint differs (chart_crds) against "
         "every CRD applied on every run (kubernetes.core.k8s, a run per file, commit %s)" % UNFINGERPRINTED_CRDS_COMMIT,
         ["playbooks/engine.yml"], dict(), dict(project=unfingerprinted, extra_vars={"fluid_values": released})),
        ("forks 25", "forks 25 against the project's 10 (ANSIBLE_FORKS)", CLUSTER_PHASES,
         dict(env={"ANSIBLE_FORKS": "25"}), dict()),
    ]
    rows = []
    for name, what, playbooks, tuned, defaults in cases:
        measured = {"tuned": [], "defaults": []}
        for _run in range(bench.runs):
            for variant, options in (("defaults", defaults), ("tuned", tuned)):
                measured[variant].append(bench.playbook(playbooks, inventory, **options))
        row = {"name": name, "what": what, "nodes": count, "tuned": summarize(measured["tuned"]),
               "defaults": summarize(measured["defaults"])}
        row["ratio"] = round(row["tuned"]["seconds"]["median"] / row["defaults"]["seconds"]["median"], 2)
        log("%s at %d nodes: %.2fx (tuned %.1f s, defaults %.1f s)" % (name, count, row["ratio"], row["tuned"]["seconds"]["median"],
                                                                       row["defaults"]["seconds"]["median"]))
        rows.append(row)
    return rows


def per_node(rows, measure, key="seconds"):
    """The growth per added node between the smallest and the largest size, by medians."""
    first, last = rows[0], rows[-1]
    if last["nodes"] == first["nodes"]:
        return None
    return round((last[measure][key]["median"] - first[measure][key]["median"]) / (last["nodes"] - first["nodes"]), 3)


def goals(report):
    rows = report["cluster"]
    by_size = {row["nodes"]: row for row in rows}
    largest, smallest = rows[-1], rows[0]
    found = []
    for row in rows:
        found.append({"goal": "idempotent <= 1/4 of cold at %d nodes" % row["nodes"], "target": 0.25,
                      "value": round(row["idempotent"]["seconds"]["median"] / row["cold"]["seconds"]["median"], 2), "below": True})
    if largest is not smallest:
        found.append({"goal": "cluster phases (cold) at %d nodes <= 2x at %d" % (largest["nodes"], smallest["nodes"]), "target": 2.0,
                      "value": round(largest["cold"]["seconds"]["median"] / smallest["cold"]["seconds"]["median"], 2), "below": True})
    if 64 in by_size:
        found.append({"goal": "status.yml < 3 s at 64 nodes", "target": 3.0, "value": by_size[64]["status"]["seconds"]["median"],
                      "below": True})
    for row in found:
        row["met"] = row["value"] <= row["target"]
    return found


def markdown(report):
    cluster = report["cluster"]
    lines = [MARK_BEGIN, "## The bundle's own speed (`make bench`)", "",
             "Measured on %(machine)s, %(date)s, commit %(commit)s; each measure %(runs)d run%(plural)s, median (min-max) in seconds "
             "of wall time. The local cluster: a real API server, Helm, Fluid's controllers and Alluxio in pods on four real nodes, "
             "and kwok's simulated nodes beyond them (tainted and labelled virtual: only the DaemonSets that tolerate every taint "
             "place pods there, and no container runs); the node hosts stay four podman containers at every size (GPU hosts 5 and "
             "up reach one of them)." % dict(report, plural="" if report["runs"] == 1 else "s"), "",
             "- *cold*: %s, with nothing of them deployed (teardown.yml, the nodes' labels taken back; Fluid's CRDs stay)." % (
                 ", ".join(os.path.basename(p) for p in CLUSTER_PHASES)),
             "- *idempotent*: the same playbooks again (changed=0 every time: %s)." % (
                 "yes" if all(set(row["idempotent"]["changed"]) == {0} for row in cluster) else "**no**"),
             "- *API requests*: every request of the run, Helm's too, counted by a proxy in front of the API server.", "",
             "| nodes | cold s | idempotent s | status.yml s | render s | API requests cold / idempotent / status | "
             "Ansible CPU s cold / idempotent |", "|---|---|---|---|---|---|---|"]

    def cell(measure):
        return "**%.1f** (%.1f-%.1f)" % (measure["median"], measure["min"], measure["max"])

    for row in cluster:
        lines.append("| %d | %s | %s | %s | %s | %d / %d / %d | %.1f / %.1f |" % (
            row["nodes"], cell(row["cold"]["seconds"]), cell(row["idempotent"]["seconds"]), cell(row["status"]["seconds"]),
            cell(row["render"]["seconds"]), row["cold"]["requests"]["median"], row["idempotent"]["requests"]["median"],
            row["status"]["requests"]["median"], row["cold"]["cpu_seconds"]["median"], row["idempotent"]["cpu_seconds"]["median"]))
    growth = report["per_node"]
    lines += ["", "Per added node (from %d to %d nodes, medians): cold %+.2f s and %+.1f requests, idempotent %+.2f s and %+.1f "
              "requests, status.yml %+.3f s." % (cluster[0]["nodes"], cluster[-1]["nodes"], growth["cold_seconds"],
                                                 growth["cold_requests"], growth["idempotent_seconds"], growth["idempotent_requests"],
                                                 growth["status_seconds"])]
    largest = cluster[-1]
    for name in ("cold", "idempotent"):
        lines.append("Where the %s run's time goes at %d nodes (its slowest tasks, wall seconds): %s." % (
            name, largest["nodes"], "; ".join("%s %.1f" % (task, seconds) for seconds, task in largest[name].get("slowest_tasks", []))))
    lines += ["", "| OS phase (nodes.yml) | cold s | idempotent s |", "|---|---|---|"]
    for row in report["os_phase"]:
        lines.append("| %d hosts | %s | %s |" % (row["hosts"], cell(row["cold"]["seconds"]), cell(row["idempotent"]["seconds"])))
    lines += ["", "Each tuning against the defaults it replaces, run by turns in the same run, on a converged cluster:", "",
              "| tuning | nodes | tuned s | defaults s | ratio (tuned/defaults) | requests tuned / defaults |", "|---|---|---|---|---|---|"]
    for row in report["tunings"]:
        lines.append("| %s: %s | %d | %s | %s | **%.2fx** | %d / %d |" % (
            row["name"], row["what"], row["nodes"], cell(row["tuned"]["seconds"]), cell(row["defaults"]["seconds"]), row["ratio"],
            row["tuned"]["requests"]["median"], row["defaults"]["requests"]["median"]))
    lines += ["", "| goal | value | met |", "|---|---|---|"]
    for row in report["goals"]:
        lines.append("| %s | %.2f | %s |" % (row["goal"], row["value"], "yes" if row["met"] else "**no**"))
    lines += ["", "What grows with the nodes, and what would remove it:", ""] + report["growth_notes"]
    for failed in report.get("failed", []):
        lines += ["", "**Not measured, as the section failed:** %s" % failed]
    lines += ["", "![deploy](benchmarks/deploy.png)", "", "Raw figures: [benchmarks/deploy.json](benchmarks/deploy.json).", MARK_END]
    return "\n".join(lines) + "\n"


def growth_notes(report):
    """Where the per-node cost comes from: the requests the runs made, and the tasks on the GPU hosts."""
    notes = []
    smallest, largest = report["cluster"][0], report["cluster"][-1]
    verbs = collections.Counter(largest["idempotent"]["results"][0]["requests_by_verb"])
    notes.append("- The idempotent run at %d nodes made %s requests (%s), %+.2f per added node." % (
        largest["nodes"], largest["idempotent"]["requests"]["median"], ", ".join("%s %d" % item for item in sorted(verbs.items())),
        report["per_node"]["idempotent_requests"]))

    def on_hosts(row):
        return statistics.median(result.get("host_task_seconds", 0.0) for result in row["idempotent"]["results"])

    if largest is not smallest:
        grown = largest["idempotent"]["seconds"]["median"] - smallest["idempotent"]["seconds"]["median"]
        hosts_grown = on_hosts(largest) - on_hosts(smallest)
        notes.append(
            "- The idempotent run grows by %+.2f s per added node on this machine; the tasks on the GPU hosts (Ansible "
            "reaching each host: preflight's /dev/fuse look-up and each node role's variable checks, in forks) grew by "
            "%.1f s of its %.1f s from %d to %d nodes. What would remove it: checking the variables once per distinct "
            "set of values on the controller instead of once per host." % (
                report["per_node"]["idempotent_seconds"], hosts_grown, grown, smallest["nodes"], largest["nodes"]))
    notes.append("- The node labels are one list and a patch per node that differs (gpu_node_labels), and the CRDs one "
                 "metadata-only list (chart_crds): no request per node or per CRD when nothing changed.")
    return notes


def chart(report, path):
    """Median seconds by node count: cold, idempotent, status.yml, render."""
    from PIL import Image, ImageDraw

    rows = report["cluster"]
    width, height, left, top, bottom = 900, 420, 70, 40, 50
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), "The bundle's runs: median seconds by GPU nodes (lines: min-max)", fill="black")
    series = [("cold", (200, 60, 40)), ("idempotent", (40, 90, 160)), ("status", (60, 150, 60)), ("render", (150, 110, 40))]
    peak = max(row[name]["seconds"]["max"] for row in rows for name, _unused in series) * 1.1
    sizes = [row["nodes"] for row in rows]

    def x(nodes):
        return left + (width - left - 40) * (sizes.index(nodes) + 0.5) / len(sizes)

    def y(seconds):
        return height - bottom - (height - bottom - top) * seconds / peak

    for tick in range(0, int(peak) + 1, max(1, int(peak / 8))):
        draw.line([(left, y(tick)), (width - 30, y(tick))], fill=(225, 225, 225))
        draw.text((10, y(tick) - 6), "%d s" % tick, fill="black")
    for offset, (name, colour) in enumerate(series):
        for row in rows:
            cx = x(row["nodes"]) + (offset - 1.5) * 22
            measure = row[name]["seconds"]
            draw.rectangle([cx - 9, y(measure["median"]), cx + 9, y(0)], fill=colour)
            draw.line([(cx, y(measure["min"])), (cx, y(measure["max"]))], fill="black")
        draw.text((left + offset * 150, height - 20), name, fill=colour)
    for nodes in sizes:
        draw.text((x(nodes) - 20, height - bottom + 5), "%d nodes" % nodes, fill="black")
    image.save(path)


def sizes_argument(text):
    try:
        sizes = sorted({int(part) for part in text.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError("--sizes=%s: give node counts separated by commas, such as 4,16,64" % text) from None
    if sizes[0] < len(HOSTS):
        raise argparse.ArgumentTypeError("--sizes=%s: each count must be at least %d (the node hosts)" % (text, len(HOSTS)))
    return sizes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of each measure (median and min-max); at least 1")
    parser.add_argument("--sizes", type=sizes_argument, default=[4, 16, 64], help="GPU node counts (the four real ones, then simulated ones), such as 4,16,64")
    parser.add_argument("--tune-nodes", type=int, help="GPU nodes for the tunings (default: the largest size)")
    parser.add_argument("--hosts", default="2,4", help="host containers for the OS phase, such as 2,4")
    parser.add_argument("--doc", default=os.path.join(REPO, "docs", "benchmarks.md"))
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs=%d must be at least 1" % args.runs)
    if args.tune_nodes is not None and args.tune_nodes < len(HOSTS):
        parser.error("--tune-nodes=%d must be at least %d (the node hosts)" % (args.tune_nodes, len(HOSTS)))
    try:
        host_counts = sorted({int(part) for part in args.hosts.split(",")})
    except ValueError:
        parser.error("--hosts=%s: give host counts separated by commas, such as 2,4" % args.hosts)
    began = time.monotonic()
    # Measured on the real nodes (inventory/local), kwok's beyond them.
    os.environ["FLUIDOPS_NODES"] = "real"
    status = run([CLUSTER, "status"], check=False).stdout
    if "apiserver: running" in status and "registry: running" not in status:
        raise SystemExit("bench: the local cluster that is up is the simulated one (FLUIDOPS_NODES=kwok): run make cluster-down "
                         "first; the bench starts the one with real nodes")
    if "apiserver: running" not in status:
        log("starting the local cluster (make cluster-up)")
        run([CLUSTER, "up"])
    work = tempfile.mkdtemp(prefix="fluidops-bench-")
    bench = Bench(work, args.runs)
    image = open(os.path.join(CACHE, ".host-image"), encoding="utf-8").read().strip()
    try:
        report = {"machine": machine(), "cpus": os.cpu_count(), "date": datetime.date.today().isoformat(), "runs": args.runs,
                  "commit": run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]).stdout.strip()}
        report["cluster"] = cluster_phases(bench, args.sizes)
        # A later section that fails keeps what the earlier ones measured: the report names it.
        report["failed"] = []
        for name, section in (("os_phase", lambda: os_phase(bench, host_counts, image)),
                              ("tunings", lambda: tunings(bench, args.tune_nodes or args.sizes[-1]))):
            try:
                report[name] = section()
            except SystemExit as error:
                report[name] = []
                report["failed"].append("%s: %s" % (name, error))
                log("%s failed, the report goes on without it: %s" % (name, error))
    finally:
        bench.proxy.close()
        run([CLUSTER, "nodes", str(len(HOSTS))], check=False)
        shutil.rmtree(work, ignore_errors=True)
    report["per_node"] = {
        "cold_seconds": per_node(report["cluster"], "cold"), "idempotent_seconds": per_node(report["cluster"], "idempotent"),
        "status_seconds": per_node(report["cluster"], "status"), "cold_requests": per_node(report["cluster"], "cold", "requests"),
        "idempotent_requests": per_node(report["cluster"], "idempotent", "requests")}
    if report["per_node"]["cold_seconds"] is None:
        report["per_node"] = {key: 0.0 for key in report["per_node"]}
    report["goals"] = goals(report)
    report["growth_notes"] = growth_notes(report)
    report["seconds"] = round(time.monotonic() - began)
    path = publish(args.doc, "deploy", report, chart, markdown(report), MARK_BEGIN, MARK_END)
    log("done in %d s: %s, %s" % (report["seconds"], args.doc, path))
    for row in report["goals"]:
        log("%-50s %6.2f %s" % (row["goal"], row["value"], "met" if row["met"] else "missed"))
    if report["failed"]:
        raise SystemExit("bench: %d section(s) failed: %s" % (len(report["failed"]), "; ".join(report["failed"])))


if __name__ == "__main__":
    main()
