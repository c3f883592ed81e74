"""make bench-datapath: the data path measured, not asserted. A benchmark command, not a test.

In one run, each case several times (median and spread), on one node host container:
- direct reads from a ramfs (the ceiling);
- reads from a remote store: an S3 gateway (versitygw, posix backend) behind throttle.py, which
  adds a one-way delay to every byte and one shared bandwidth limit;
- a real Alluxio (tools/alluxio, tools/localcluster/alluxio.sh) configured as Fluid configures it:
  Fluid's controller writes the values of a runtime with the profile (fluid_values.py), Helm renders
  Fluid's runtime chart with them (tools/alluxio/localconf.py); the store mounted over S3: cold (the store read
  through Alluxio), and warm after `fs distributedLoad`, through a JNI-FUSE mount just started
  ("Alluxio-warm") and again through the same mount ("page-cache warm");
- the dl-training profile against fluid-defaults (Alluxio's and the chart's defaults);
- from dl-training, one FUSE option at a time taken away (kernel_cache; attr/entry timeouts), the
  client metadata cache turned off, and the client cache turned on (dl-training-client-cache).

The data set is shaped like the seeds' ImageNet, scaled to this machine: many small files
(~110 KB, an ImageNet JPEG's mean size) and TFRecord-like shards. The readers (reader.py) work
like a data loader: several threads, a new shuffled order every epoch. Writes the table into
docs/benchmarks.md (between its datapath markers), docs/benchmarks/datapath.json and
docs/benchmarks/datapath.png.
"""

import argparse
import datetime
import functools
import json
import os
import random
import secrets
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import time

import yaml
from fluid_values import fluid_values
from report import machine, pinned, publish

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools", "alluxio"))
import localconf  # noqa: E402  pylint: disable=wrong-import-position

CACHE = os.path.join(os.environ.get("FLUIDOPS_CACHE_DIR", os.path.expanduser("~/.cache/fluidops")))
LOCAL = os.path.join(CACHE, "localcluster")
WORK = os.path.join(CACHE, "datapath")
STATE = os.path.join(WORK, "alluxio")
HOST = "fluidops-bench"
ALLUXIO_SH = os.path.join(REPO, "tools", "localcluster", "alluxio.sh")
BUCKET = "bench"
MIB = 1024 * 1024
# The worker's tier: the standalone chart's default (roles/alluxio/defaults), MEM on the ramfs the
# gpu_node role mounts at /ram/alluxio, with room for the data set.
with open(os.path.join(REPO, "roles", "alluxio", "defaults", "main.yml"), encoding="utf-8") as _handle:
    TIER = yaml.safe_load(_handle)["alluxio_tiers"][0]
# The runtimes' mount, for Fluid's values (the bench mounts its store itself, with its keys).
MOUNT_OPTIONS = {"alluxio.underfs.s3.endpoint.region": "us-east-1", "alluxio.underfs.s3.disable.dns.buckets": "true",
                 "alluxio.underfs.s3.inherit.acl": "false"}
PROFILES = ("fluid-defaults", "dl-training", "dl-training-client-cache")
# A FUSE JVM just started compiles its hot paths during its first reads; a long-running one (a
# training job's) has long done so. Each FUSE start is followed by reading these other files.
WARMUP_FILES = 200
MARK_BEGIN, MARK_END = "<!-- datapath:begin -->", "<!-- datapath:end -->"


def log(message):
    print("[bench-datapath] %s" % message, file=sys.stderr, flush=True)


def run(command, env=None, check=True, quiet=False):
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if check and done.returncode:
        shown = " ".join(command) if not quiet else command[0] + " ..."
        raise SystemExit("bench-datapath: %s failed (exit %d): %s" % (shown, done.returncode, (done.stderr or done.stdout).strip()[-2000:]))
    return done


def podman_env():
    return dict(os.environ, CONTAINERS_CONF=os.environ.get("CONTAINERS_CONF", os.path.join(REPO, "tools", "podman", "containers.conf")))


def alluxio_env(values=None):
    """alluxio.sh's environment; ``values``: Fluid's values file, for up."""
    env = dict(podman_env(), FLUIDOPS_ALLUXIO_STATE=STATE, FLUIDOPS_ALLUXIO_NODES=HOST)
    if values:
        env["FLUIDOPS_ALLUXIO_VALUES"] = values
    return env


def fuse_root():
    """The dataset through the FUSE mount: the mount point Fluid's values give, the store at /bench."""
    with open(os.path.join(STATE, "layout.env"), encoding="utf-8") as handle:
        settings = dict(line.rstrip("\n").split("=", 1) for line in handle if "=" in line)
    return shlex.split(settings["FUSE_MOUNT"])[0] + "/bench"


def in_host(*command, check=True):
    return run(["podman", "exec", HOST, *command], env=podman_env(), check=check)


# -- the data set ---------------------------------------------------------------------------
def make_dataset(small_files, shards, shard_mib):
    """Written once per shape into the store's bucket directory, with the readers' index files."""
    shape = "small%d-shards%dx%d-warmup%d" % (small_files, shards, shard_mib, WARMUP_FILES)
    store = os.path.join(WORK, "store-" + shape)
    index = os.path.join(WORK, "index-" + shape)
    if os.path.exists(os.path.join(index, ".complete")):
        return store, index
    log("writing the data set (%s) into %s" % (shape, store))
    shutil.rmtree(store, ignore_errors=True)
    shutil.rmtree(index, ignore_errors=True)
    os.makedirs(index)
    rng = random.Random(2012)  # ILSVRC-2012
    small, large, warmup = [], [], []
    for number in range(small_files):
        size = int(rng.uniform(40, 180) * 1000)  # around ImageNet's mean JPEG of ~110 KB
        name = "small/n%05d/%08d.JPEG" % (number // 500, number)
        small.append((size, name))
    for number in range(shards):
        large.append((shard_mib * MIB, "shards/train-%05d-of-%05d" % (number, shards)))
    for number in range(WARMUP_FILES):
        warmup.append((int(rng.uniform(40, 180) * 1000), "warmup/%05d.JPEG" % number))
    for size, name in small + large + warmup:
        path = os.path.join(store, BUCKET, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(rng.randbytes(size))
    for label, files in (("small", small), ("shards", large), ("warmup", warmup)):
        with open(os.path.join(index, label), "w", encoding="utf-8") as handle:
            handle.write("".join("%d %s\n" % item for item in files))
    open(os.path.join(index, ".complete"), "w", encoding="utf-8").close()
    return store, index


# -- the remote store ---------------------------------------------------------------------------
def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(host, port, process, what):
    deadline = time.time() + 120
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit("bench-datapath: %s exited with %d" % (what, process.returncode))
        with socket.socket() as sock:
            if sock.connect_ex((host, port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit("bench-datapath: %s did not listen on %s:%d in 120 s" % (what, host, port))


class RemoteStore:
    """versitygw over the data set's directory, and throttle.py in front of it on the podman
    bridge's gateway address, which the host container reaches."""

    def __init__(self, store, gateway, delay_ms, rate_mib):
        self.access, self.secret = "bench" + secrets.token_hex(4), secrets.token_hex(20)
        self.gateway, self.delay_ms, self.rate_mib = gateway, delay_ms, rate_mib
        self.s3_port, self.port = free_port(), free_port()
        logs = os.path.join(WORK, "logs")
        os.makedirs(logs, exist_ok=True)
        env = dict(os.environ, ROOT_ACCESS_KEY=self.access, ROOT_SECRET_KEY=self.secret)  # not on a command line
        self.processes = [subprocess.Popen(
            [os.path.join(LOCAL, "versitygw"), "--port", "127.0.0.1:%d" % self.s3_port, "--quiet", "posix", "--nometa", store],
            env=env, stdout=open(os.path.join(logs, "versitygw.log"), "w"), stderr=subprocess.STDOUT)]
        wait_for_port("127.0.0.1", self.s3_port, self.processes[0], "versitygw")
        self.processes.append(subprocess.Popen(
            [sys.executable, os.path.join(HERE, "throttle.py"), "--listen", "%s:%d" % (gateway, self.port),
             "--to", "127.0.0.1:%d" % self.s3_port, "--delay-ms", str(delay_ms), "--rate-mib", str(rate_mib)],
            stdout=open(os.path.join(logs, "throttle.log"), "w"), stderr=subprocess.STDOUT))
        wait_for_port(gateway, self.port, self.processes[1], "throttle.py")

    @property
    def url(self):
        return "http://%s:%d" % (self.gateway, self.port)

    def stop(self):
        for process in self.processes:
            process.terminate()
            process.wait()


# -- the host and its Alluxio ---------------------------------------------------------------------------
def start_host(index, store):
    image = run([os.path.join(REPO, "tools", "hostimage", "build.sh")], env=podman_env()).stdout.strip()
    run(["podman", "rm", "-f", HOST], env=podman_env())
    shutil.rmtree(os.path.join(STATE, "logs"), ignore_errors=True)  # this run's logs only
    mounts = run([ALLUXIO_SH, "mounts"], env=alluxio_env()).stdout.split("\n")
    run(["podman", "run", "-d", "--name", HOST, "--hostname", HOST, "--privileged", "--label", "fluidops.local=bench",
         *[m for m in mounts if m], "-v", "%s:/data:ro" % os.path.join(store, BUCKET), "-v", "%s:/index:ro" % index,
         "-v", "%s:/bench:ro" % HERE, image], env=podman_env())
    # The bundle's own node preparation (ramfs on /ram/alluxio, FUSE packages), with the local
    # inventory's settings for a host of its own.
    inventory = os.path.join(WORK, "hosts.yml")
    with open(inventory, "w", encoding="utf-8") as handle:
        handle.write("all:\n  children:\n    gpu_nodes:\n      hosts:\n        %s:\n      vars:\n"
                     "        ansible_connection: containers.podman.podman\n        ansible_user: root\n" % HOST)
    venv = open(os.path.join(CACHE, ".venv-path"), encoding="utf-8").read().strip()
    env = dict(podman_env(), ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), PATH=os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"])
    log("preparing %s with the gpu_node role" % HOST)
    run(["ansible-playbook", os.path.join(REPO, "playbooks", "nodes.yml"), "-i", os.path.join(REPO, "inventory", "local"),
         "-i", inventory, "--limit", HOST], env=env)
    # The direct case's copy gets a ramfs of its own, beside the role's /ram/alluxio tier.
    in_host("sh", "-c", "mkdir -p /ram/direct && (findmnt /ram/direct >/dev/null || mount -t ramfs ramfs /ram/direct) "
            "&& cp -a /data/. /ram/direct/")


@functools.lru_cache(maxsize=1)
def client_env():
    """What a client of the benchmark's Alluxio needs (alluxio.sh env), read once."""
    return dict(line.split("=", 1) for line in run([ALLUXIO_SH, "env"], env=alluxio_env()).stdout.splitlines())


def alluxio_cli(*args, check=True, quiet=False):
    env = dict(os.environ, **client_env())
    return run([os.path.join(REPO, "tools", "alluxio", "bin", "alluxio"), *args], env=env, check=check, quiet=quiet)


def start_alluxio(profile, values):
    log("starting Alluxio with the %s profile (Fluid's values: %s)" % (profile, values))
    in_host("sh", "-c", "rm -rf /ram/alluxio/* /underFSStorage/*")
    run([ALLUXIO_SH, "up"], env=alluxio_env(values))


def stop_alluxio():
    run([ALLUXIO_SH, "stop"], env=alluxio_env())


def remount_fuse():
    """A new FUSE process and mount, then the JVM's warm-up reads (not measured, other files)."""
    run([ALLUXIO_SH, "remount-fuse"], env=alluxio_env())
    in_host("python3", "/bench/reader.py", "--index", "/index/warmup", "--threads", "8", "--root", fuse_root())


def mount_store(store):
    """The bucket at /bench, read-only, as Fluid mounts an OSS or S3 dataset; a fresh mount has
    neither metadata nor blocks in Alluxio."""
    alluxio_cli("fs", "unmount", "/bench", check=False)
    alluxio_cli("fs", "mount", "--readonly",
                "--option", "alluxio.underfs.s3.endpoint=%s" % store.url,
                "--option", "alluxio.underfs.s3.endpoint.region=us-east-1",
                "--option", "alluxio.underfs.s3.disable.dns.buckets=true",
                "--option", "alluxio.underfs.s3.inherit.acl=false",
                "--option", "s3a.accessKeyId=%s" % store.access, "--option", "s3a.secretKey=%s" % store.secret,
                "/bench", "s3://%s/" % BUCKET, quiet=True)  # quiet: the command line holds the key


def machine_ticks():
    """(busy, total) clock ticks of all cores, from /proc/stat: the whole machine, whoever uses it."""
    with open("/proc/stat", encoding="utf-8") as handle:
        fields = [int(value) for value in handle.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


def fuse_rss_mib():
    pid = open(os.path.join(STATE, "logs", HOST, "fuse.pid"), encoding="utf-8").read().strip()
    status = in_host("cat", "/proc/%s/status" % pid).stdout
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))) // 1024


def fuse_cpu_seconds():
    """The FUSE JVM's user+system CPU time (clock ticks of /proc/PID/stat)."""
    pid = open(os.path.join(STATE, "logs", HOST, "fuse.pid"), encoding="utf-8").read().strip()
    fields = in_host("cat", "/proc/%s/stat" % pid).stdout.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- the readers ---------------------------------------------------------------------------
WORKLOADS = {"small": {"threads": 8}, "shards": {"threads": 4}}


def epoch(source, workload, seed, store=None, fuse=False):
    """One epoch of one workload: {"mib_s", "files_s", "seconds", "bytes", "fuse_cpu_s"}."""
    command = ["python3", "/bench/reader.py", "--index", "/index/" + workload, "--threads", str(WORKLOADS[workload]["threads"]),
               "--seed", str(seed)]
    if source == "s3":
        command += ["--s3", store.url, "--bucket", BUCKET, "--key-file", KEY_FILE]
    else:
        command += ["--root", source]
    cpu = fuse_cpu_seconds() if fuse else None
    machine = machine_ticks()
    done = in_host(*command)
    busy, total = [after - before for after, before in zip(machine_ticks(), machine)]
    result = json.loads(done.stdout)
    result["machine_busy"] = busy / total if total else 0.0
    result["mib_s"] = result["bytes"] / MIB / result["seconds"]
    result["files_s"] = result["files"] / result["seconds"]
    if fuse:
        result["fuse_cpu_s"] = fuse_cpu_seconds() - cpu
    return result


KEY_FILE = "/root/bench-s3-key"


def write_key(store):
    """The reader's S3 key, in a file of the host's only (never on a command line)."""
    process = subprocess.run(["podman", "exec", "-i", HOST, "sh", "-c", "umask 077; cat > %s" % KEY_FILE],
                             input="%s %s" % (store.access, store.secret), text=True, env=podman_env(), capture_output=True, check=False)
    if process.returncode:
        raise SystemExit("bench-datapath: could not write the reader's key file in %s" % HOST)


# -- the plan ---------------------------------------------------------------------------
class Bench:
    def __init__(self, runs, store, values):
        self.runs, self.store, self.values = runs, store, values
        self.cases = []  # {"name", "group", "note", "results": {workload: [epoch results]}}
        self.seed = 0
        self.load_seconds = {}  # profile label -> seconds of fs distributedLoad

    def case(self, name, group, note, measure):
        """`measure()` returns {workload: epoch result}; called `runs` times."""
        log("%s (%d runs)" % (name, self.runs))
        entry = {"name": name, "group": group, "note": note, "results": {w: [] for w in WORKLOADS}}
        for _run in range(self.runs):
            for workload, result in measure().items():
                entry["results"][workload].append(result)
        self.cases.append(entry)
        for workload, results in entry["results"].items():
            log("  %-6s median %8.1f MiB/s" % (workload, statistics.median(r["mib_s"] for r in results)))
        return entry

    def next_seed(self):
        self.seed += 1
        return self.seed

    def epochs(self, source, fuse=False):
        """Each workload once, each with a new shuffled order."""
        return {workload: epoch(source, workload, self.next_seed(), self.store, fuse) for workload in WORKLOADS}

    def alluxio_cases(self, profile, label, fuse_variants=()):
        """Cold, Alluxio-warm and page-cache-warm through a given profile; then FUSE variants on
        the warm cache: (name, note, fuse.args transform, alluxio-env.sh transform), each None
        or a function of the file's text; only the FUSE process is restarted with them."""
        start_alluxio(profile, self.values[profile])

        def cold():
            mount_store(self.store)
            remount_fuse()  # a new mount: no page cache, no client metadata cache
            return self.epochs(fuse_root(), fuse=True)

        self.case("Alluxio cold (%s)" % label, "cold", "the store read through Alluxio, after a fresh mount", cold)
        mount_store(self.store)
        began = time.monotonic()
        alluxio_cli("fs", "distributedLoad", "/bench")
        self.load_seconds[label] = round(time.monotonic() - began, 1)
        cached = alluxio_cli("fs", "du", "-s", "/bench").stdout
        log("distributedLoad took %.1f s: %s" % (self.load_seconds[label], " ".join(cached.split()[-4:])))
        self.warm_case("Alluxio warm (%s)" % label, "after distributedLoad, a FUSE mount just started", None, None)
        for name, note, transform, env_transform in fuse_variants:
            try:
                self.warm_case(name, note, transform, env_transform)
            except SystemExit as error:  # a variant that breaks is a finding: the others still run
                message = str(error)[-400:]
                if "OutOfMemoryError" in in_host("cat", "%s/logs/%s/fuse.out" % ("/opt/alluxio/state", HOST), check=False).stdout:
                    message += " (the FUSE JVM ran out of heap: OutOfMemoryError in fuse.out, at %d MiB RSS)" % fuse_rss_mib()
                log("  FAILED: %s" % message)
                self.cases.append({"name": name, "group": "warm", "note": note, "error": message})
        stop_alluxio()

    def warm_case(self, name, note, transform, env_transform):
        args_path = os.path.join(STATE, "fuse.args")
        env_path = os.path.join(STATE, "conf", "alluxio-env.sh")
        saved_args = open(args_path, encoding="utf-8").read()
        saved_env = open(env_path, encoding="utf-8").read()
        try:
            if transform:
                with open(args_path, "w", encoding="utf-8") as handle:
                    handle.write(transform(saved_args))
            if env_transform:
                with open(env_path, "w", encoding="utf-8") as handle:
                    handle.write(env_transform(saved_env))
            fresh, again = {}, {}

            def first():
                remount_fuse()
                results = self.epochs(fuse_root(), fuse=True)
                again.update(self.epochs(fuse_root(), fuse=True))  # the same mount, a second epoch
                for workload, result in again.items():
                    fresh.setdefault(workload, []).append(result)
                return results

            self.case(name, "warm", note, first)["fuse_rss_mib"] = fuse_rss_mib()
            entry = {"name": name + ", 2nd epoch", "group": "page", "note": "the same FUSE mount read again: kernel page cache "
                     "and client caches warm", "results": fresh}
            self.cases.append(entry)
            for workload, results in fresh.items():
                log("  2nd epoch %-6s median %8.1f MiB/s" % (workload, statistics.median(r["mib_s"] for r in results)))
        finally:
            with open(args_path, "w", encoding="utf-8") as handle:
                handle.write(saved_args)
            with open(env_path, "w", encoding="utf-8") as handle:
                handle.write(saved_env)


def without_options(*names):
    """fuse.args with those --fuse-opts entries taken out."""
    def transform(text):
        lines = []
        for line in text.splitlines():
            if line.startswith("--fuse-opts="):
                options = [o for o in line.split("=", 1)[1].split(",") if o.split("=", 1)[0] not in names]
                line = "--fuse-opts=" + ",".join(options)
            lines.append(line)
        return "\n".join(lines) + "\n"
    return transform


def profile_env(values, running, master_host):
    """alluxio-env.sh of another profile's runtime, for the FUSE process only, as Fluid would have
    rendered it for the running runtime (``running``: its values): the runtime's name is in the
    worker's tier path, which short-circuit reads with policy local take from the client's own
    settings (a FUSE client with another runtime's path finds no block file and retries for ever),
    and in the master's and the pods' names. The ports are the same."""
    names = []
    for path in (values, running):
        with open(path, encoding="utf-8") as handle:
            names.append(yaml.safe_load(handle)["runtimeIdentity"]["name"])
    out = os.path.join(WORK, "conf-" + os.path.basename(values).rsplit(".", 1)[0])
    run([sys.executable, os.path.join(REPO, "tools", "alluxio", "localconf.py"), "--values", values, "--out", out,
         "--master-host", master_host, "--helm", os.path.join(LOCAL, "helm"), "--chart", os.path.join(LOCAL, "fluid", "charts", "alluxio")])
    text = open(os.path.join(out, "conf", "alluxio-env.sh"), encoding="utf-8").read()
    text = text.replace(names[0], names[1])
    return lambda _: text


def property_set(key, old, new):
    """alluxio-env.sh with one -D property changed; the profile must set it."""
    def transform(text):
        flag = "-D%s=%s" % (key, old)
        if flag not in text:
            raise SystemExit("bench-datapath: the profile does not set %s=%s" % (key, old))
        return text.replace(flag, "-D%s=%s" % (key, new))
    return transform


# -- the report ---------------------------------------------------------------------------
def short_circuit(values_path):
    """Fluid's short-circuit setting in its values, as words."""
    with open(values_path, encoding="utf-8") as handle:
        setting = yaml.safe_load(handle).get("shortCircuit") or {}
    if not setting.get("enable", setting.get("enabled")):
        return "off"
    return "on, policy %s (the FUSE client reads the worker's block files on the same host)" % setting.get("policy", "?")


def summary(results):
    speeds = sorted(r["mib_s"] for r in results)
    row = {"runs": len(results), "median_mib_s": round(statistics.median(speeds), 1), "min_mib_s": round(speeds[0], 1),
           "max_mib_s": round(speeds[-1], 1), "median_files_s": round(statistics.median(r["files_s"] for r in results), 1)}
    row["machine_busy"] = round(statistics.median(r.get("machine_busy", 0.0) for r in results), 2)
    cpu = [r for r in results if "fuse_cpu_s" in r]
    if cpu:
        row["fuse_cores"] = round(statistics.median(r["fuse_cpu_s"] / r["seconds"] for r in cpu), 2)  # CPU s per s of reading
        row["fuse_cpu_ms_per_file"] = round(statistics.median(1000 * r["fuse_cpu_s"] / r["files"] for r in cpu), 2)
    return row


def ratio(cases, numerator, denominator, workload):
    def median(name):
        return next(c["summary"][workload]["median_mib_s"] for c in cases if c["name"] == name)
    return round(median(numerator) / median(denominator), 2)


def goals(cases):
    warm, direct, remote = "Alluxio warm (dl-training)", "direct ramfs", "remote store (S3, throttled)"
    rows = []
    for workload in WORKLOADS:
        rows.append({"goal": "warm >= 0.8x direct ramfs (%s)" % workload, "target": 0.8, "ratio": ratio(cases, warm, direct, workload)})
        rows.append({"goal": "warm >= 5x the throttled store (%s)" % workload, "target": 5.0, "ratio": ratio(cases, warm, remote, workload)})
    rows.append({"goal": "dl-training >= 3x defaults, warm small files", "target": 3.0,
                 "ratio": ratio(cases, warm, "Alluxio warm (fluid-defaults)", "small")})
    rows.append({"goal": "dl-training >= 3x defaults, 2nd epoch small files", "target": 3.0,
                 "ratio": ratio(cases, warm + ", 2nd epoch", "Alluxio warm (fluid-defaults), 2nd epoch", "small")})
    for row in rows:
        row["met"] = row["ratio"] >= row["target"]
    return rows


def bounds(report):
    """For each missed goal, what bounds it, in the run's own figures."""
    by_name = {c["name"]: c["summary"] for c in report["cases"] if "summary" in c}
    warm, second = by_name["Alluxio warm (dl-training)"], by_name["Alluxio warm (dl-training), 2nd epoch"]
    direct, remote = by_name["direct ramfs"], by_name["remote store (S3, throttled)"]
    missed = {row["goal"] for row in report["goals"] if not row["met"]}
    lines = []
    if any(goal.startswith("warm >= 0.8x direct") for goal in missed):
        small = warm["small"]
        if small["machine_busy"] >= 0.9:
            bound = "the machine's cores were %.0f%% busy: this per-file work on %d cores is the bound" % (
                100 * small["machine_busy"], report["cpus"])
        else:
            bound = ("the machine's cores were only %.0f%% busy, so the bound is the wait in these round trips: each of the "
                     "%d reader threads spent %.1f ms per file" % (100 * small["machine_busy"], WORKLOADS["small"]["threads"],
                                                                   1000 * WORKLOADS["small"]["threads"] / small["median_files_s"]))
        lines.append(
            "- *Warm against direct*: warm small files come at %.0f files/s against %.0f from the ramfs. Through FUSE every "
            "file is several kernel round trips into the JNI-FUSE JVM (lookup, getattr, open, reads of at most max_read, "
            "release) plus a gRPC stream from the worker; the FUSE JVM spent %.2f ms of CPU per file (%.2f cores), and %s. "
            "The second epoch, served by the kernel page cache (kernel_cache), reaches %.0f files/s (%.2fx direct)." % (
                small["median_files_s"], direct["small"]["median_files_s"], small.get("fuse_cpu_ms_per_file", 0),
                small.get("fuse_cores", 0), bound, second["small"]["median_files_s"],
                second["small"]["median_mib_s"] / direct["small"]["median_mib_s"]))
    if any(goal.startswith("warm >= 5x the throttled") for goal in missed):
        lines.append(
            "- *Warm against the store*: the throttled store gives %.1f MiB/s on small files and %.1f on shards (its limit: "
            "%s). Warm Alluxio is bounded by the FUSE work above, not by the store; the ratio grows with a slower or farther "
            "store and with more cores for FUSE." % (remote["small"]["median_mib_s"], remote["shards"]["median_mib_s"],
                                                     report["store"].split(": ", 1)[1]))
    if any(goal.startswith("dl-training >= 3x") for goal in missed):
        defaults = by_name["Alluxio warm (fluid-defaults)"]
        defaults_second = by_name["Alluxio warm (fluid-defaults), 2nd epoch"]
        lines.append(
            "- *Profile against defaults*: on a new mount's first epoch the profile gives %.2fx the defaults on small files: "
            "each file still needs its lookups and reads from the worker once. Read again, %.2fx: Fluid's own defaults for a "
            "read-only dataset already mount FUSE with kernel_cache and 7200 s attribute and entry timeouts, and set the "
            "client metadata cache, 16MB blocks and 32MB read chunks (pkg/ddc/alluxio/transform_optimization.go): what "
            "serves a second epoch. The profile differs by max_read, a metadata cache kept 2 days instead of 10 minutes "
            "and its other properties." % (
                warm["small"]["median_mib_s"] / defaults["small"]["median_mib_s"],
                second["small"]["median_mib_s"] / defaults_second["small"]["median_mib_s"]))
    return lines


def markdown(report):
    lines = [MARK_BEGIN, "## Data path (`make bench-datapath`)", "",
             "Measured on %(machine)s, %(date)s, commit %(commit)s. Alluxio %(alluxio)s on %(java)s, one node host "
             "container; each case %(runs)d runs, each run one epoch of each workload." % report
             + (" **The local cluster was up during this run: the figures are low and noisy.**" if report["local_cluster_up"] else ""), "",
             "- **Data set**: %s." % report["dataset"],
             "- **Readers** (tools/bench/reader.py): %s." % report["readers"],
             "- **Remote store**: %s." % report["store"],
             "- **Alluxio**: master, job master, worker (MEM tier on the host's ramfs), job worker and JNI-FUSE, configured as "
             "Fluid %s configures them: for each profile its controller wrote the values of a runtime the bundle built "
             "(tools/bench/fluid_values.py), and Helm rendered Fluid's runtime chart with them (tools/alluxio/localconf.py). "
             "Short-circuit reads as Fluid set them: %s. Where the processes still differ from Fluid's pods: %s. "
             "Every case through FUSE starts a new FUSE process and mount (no page cache, no client caches), which first reads "
             "%d other files, not measured, so that its JVM has compiled its hot paths as a long-running one has." % (
                 report["fluid"], report["short_circuit"], "; ".join(report["differences"]), WARMUP_FILES),
             "- **Cases**: *cold* is a fresh mount of the store (no metadata, no blocks in Alluxio); *warm* comes after "
             "`fs distributedLoad` of the whole set; *2nd epoch* reads the set again through the same FUSE mount (kernel page "
             "cache and client caches warm), so Alluxio-warm and page-cache-warm are apart.",
             "", "| case | small files MiB/s (min-max) | files/s | shards MiB/s (min-max) | FUSE cores | FUSE CPU ms/file | cores busy "
             "| FUSE RSS MiB |", "|---|---|---|---|---|---|---|---|"]
    for case in report["cases"]:
        if "error" in case:
            lines.append("| %s | failed: %s | | | | | | |" % (case["name"], case["error"].replace("|", "/").replace("\n", " ")))
            continue
        small, shards = case["summary"]["small"], case["summary"]["shards"]
        cores = "/".join("%.2f" % case["summary"][w]["fuse_cores"] for w in WORKLOADS if "fuse_cores" in case["summary"][w])
        busy = "/".join("%.0f%%" % (100 * case["summary"][w]["machine_busy"]) for w in WORKLOADS)
        lines.append("| %s | **%.1f** (%.1f-%.1f) | %.0f | **%.1f** (%.1f-%.1f) | %s | %s | %s | %s |" % (
            case["name"], small["median_mib_s"], small["min_mib_s"], small["max_mib_s"], small["median_files_s"],
            shards["median_mib_s"], shards["min_mib_s"], shards["max_mib_s"], cores or "-",
            "%.2f" % small["fuse_cpu_ms_per_file"] if "fuse_cpu_ms_per_file" in small else "-", busy,
            case.get("fuse_rss_mib", "-")))
    lines += ["", "FUSE cores: the FUSE JVM's CPU seconds per second of reading (small/shards), on a %d-core machine. "
              "FUSE CPU ms/file: its CPU time per small file. Cores busy: the whole machine's (small/shards). FUSE RSS: after "
              "the case's runs." % report["cpus"],
              "`fs distributedLoad` of the whole set took %s." % ", ".join("%s s (%s)" % (v, k) for k, v in report["load_seconds"].items()),
              "", "| goal | ratio of medians | met |", "|---|---|---|"]
    for row in report["goals"]:
        lines.append("| %s | %.2fx | %s |" % (row["goal"], row["ratio"], "yes" if row["met"] else "**no**"))
    missed = bounds(report)
    if missed:
        lines += ["", "What bounds the missed goals:", ""] + missed
    lines += ["", "![data path](benchmarks/datapath.png)", "", "Raw figures: [benchmarks/datapath.json](benchmarks/datapath.json).", MARK_END]
    return "\n".join(lines) + "\n"


def chart(report, path):
    """Median MiB/s per case on a log scale: small files dark, shards light; the whiskers are the
    min-max of the runs."""
    import math

    from PIL import Image, ImageDraw
    cases = [c for c in report["cases"] if "summary" in c]
    left, top, row, width = 330, 50, 34, 1100
    height = top + row * len(cases) + 50
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), "Data path: median MiB/s per case, log scale (dark: small files, light: shards; lines: min-max)", fill="black")
    peak = max(c["summary"][w]["max_mib_s"] for c in cases for w in WORKLOADS)
    low = min(max(c["summary"][w]["min_mib_s"], 0.1) for c in cases for w in WORKLOADS)
    lo, hi = math.floor(math.log10(low)), math.ceil(math.log10(peak))

    def x(value):
        return left + (width - left - 30) * (math.log10(max(value, 10 ** lo)) - lo) / max(hi - lo, 1)

    for power in range(lo, hi + 1):
        draw.line([(x(10 ** power), top - 5), (x(10 ** power), height - 40)], fill=(220, 220, 220))
        draw.text((x(10 ** power) - 10, height - 35), "%g" % (10 ** power), fill="black")
    for index, case in enumerate(cases):
        y = top + index * row
        draw.text((10, y + 8), case["name"], fill="black")
        for offset, (workload, colour) in enumerate((("small", (40, 90, 160)), ("shards", (150, 190, 230)))):
            data = case["summary"][workload]
            y0 = y + offset * 14
            draw.rectangle([left, y0, x(data["median_mib_s"]), y0 + 12], fill=colour)
            draw.line([(x(data["min_mib_s"]), y0 + 6), (x(data["max_mib_s"]), y0 + 6)], fill="black")
            draw.text((x(data["median_mib_s"]) + 4, y0), "%.0f" % data["median_mib_s"], fill="black")
    image.save(path)


# -- main ---------------------------------------------------------------------------
def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per case (median and min-max)")
    parser.add_argument("--small-files", type=int, default=2000)
    parser.add_argument("--shards", type=int, default=8)
    parser.add_argument("--shard-mib", type=int, default=16)
    parser.add_argument("--delay-ms", type=float, default=10.0, help="the store's one-way delay (a round trip is twice it)")
    parser.add_argument("--rate-mib", type=float, default=64.0, help="the store's bandwidth, MiB/s, shared by all readers")
    parser.add_argument("--doc", default=os.path.join(REPO, "docs", "benchmarks.md"))
    args = parser.parse_args()
    if args.runs < 1 or args.small_files < 1 or args.shards < 1 or args.shard_mib < 1 or args.rate_mib <= 0 or args.delay_ms < 0:
        parser.error("--runs, --small-files, --shards and --shard-mib must be at least 1, --rate-mib above 0, --delay-ms not negative")
    began = time.monotonic()
    os.makedirs(WORK, exist_ok=True)
    run([os.path.join(REPO, "tools", "localcluster", "build.sh")])  # the cluster Fluid's controller runs in, and versitygw
    run([os.path.join(REPO, "tools", "alluxio", "fetch.sh")])
    store_dir, index = make_dataset(args.small_files, args.shards, args.shard_mib)
    values = fluid_values(PROFILES, TIER, MOUNT_OPTIONS, CACHE, WORK)
    cluster_up = podman_running_cluster()
    if cluster_up:
        log("WARNING: the local cluster is up and shares the cores: the figures will be low and noisy (make cluster-down first)")
    start_host(index, store_dir)
    gateway = run(["podman", "network", "inspect", "podman", "--format", "{{range .Subnets}}{{.Gateway}}{{end}}"],
                  env=podman_env()).stdout.strip()
    store = RemoteStore(store_dir, gateway, args.delay_ms, args.rate_mib)
    bench = Bench(args.runs, store, values)
    try:
        write_key(store)
        bench.case("direct ramfs", "direct", "the files on the host's ramfs", lambda: bench.epochs("/ram/direct"))
        bench.case("remote store (S3, throttled)", "remote", "GET object through the throttle", lambda: bench.epochs("s3"))
        bench.alluxio_cases("fluid-defaults", "fluid-defaults")
        host_ip = run(["podman", "container", "inspect", "-f", "{{.NetworkSettings.IPAddress}}", HOST], env=podman_env()).stdout.strip()
        bench.alluxio_cases("dl-training", "dl-training", [
            ("dl-training without kernel_cache", "FUSE option taken out", without_options("kernel_cache"), None),
            ("dl-training without attr/entry timeouts", "FUSE options taken out", without_options("attr_timeout", "entry_timeout"), None),
            ("dl-training without the metadata cache", "alluxio.user.metadata.cache.enabled=false for FUSE", None,
             property_set("alluxio.user.metadata.cache.enabled", "true", "false")),
            ("dl-training with the client cache", "profile dl-training-client-cache (2000MB MEM page store in the FUSE JVM)",
             None, profile_env(values["dl-training-client-cache"], values["dl-training"], host_ip)),
        ])
    finally:
        store.stop()
        run([ALLUXIO_SH, "down"], env=alluxio_env(), check=False)
        run(["podman", "rm", "-f", HOST], env=podman_env(), check=False)
    for case in bench.cases:
        if "error" not in case:
            case["summary"] = {w: summary(results) for w, results in case["results"].items()}
    total_small = sum(int(line.split()[0]) for line in open(os.path.join(index, "small"), encoding="utf-8"))
    report = {
        "machine": machine(), "cpus": os.cpu_count(), "date": datetime.date.today().isoformat(),
        "commit": run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"]).stdout.strip(),
        "fluid": pinned("FLUID_VERSION"), "short_circuit": short_circuit(values["dl-training"]),
        "differences": localconf.DIFFERENCES, "alluxio": "2.9.3", "java": run(["java", "-version"]).stderr.splitlines()[0].strip(), "runs": args.runs,
        "dataset": "%d small files (40-180 KB, %.0f MiB) and %d TFRecord-like shards of %d MiB" % (
            args.small_files, total_small / MIB, args.shards, args.shard_mib),
        "readers": "%s threads on the small files, each read in one call; %s threads on the shards in 1 MiB reads; a new "
                   "shuffled order every epoch" % (WORKLOADS["small"]["threads"], WORKLOADS["shards"]["threads"]),
        "store": "versitygw %s (S3, posix backend) behind tools/bench/throttle.py: %.0f ms one-way delay each way "
                 "(%.0f ms round trip), %.0f MiB/s shared by all replies" % (
                     pinned("VERSITYGW_VERSION"), args.delay_ms, 2 * args.delay_ms, args.rate_mib),
        "load_seconds": bench.load_seconds, "cases": [dict(c) for c in bench.cases],
        "seconds": round(time.monotonic() - began), "local_cluster_up": cluster_up,
    }
    report["goals"] = goals(report["cases"])
    path = publish(args.doc, "datapath", report, chart, markdown(report), MARK_BEGIN, MARK_END)
    log("done in %d s: %s, %s" % (report["seconds"], args.doc, path))
    for row in report["goals"]:
        log("%-50s %6.2fx %s" % (row["goal"], row["ratio"], "met" if row["met"] else "missed"))


def podman_running_cluster():
    done = run(["podman", "ps", "--filter", "label=fluidops.local=host", "--format", "{{.Names}}"], env=podman_env(), check=False)
    return bool(done.stdout.strip())


if __name__ == "__main__":
    main()
