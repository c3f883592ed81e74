"""make bench-datapath: the data path measured, not asserted. A benchmark command, not a test.

In one run, each case several times (median and spread), on one node host container:
- direct reads from a ramfs (the ceiling);
- reads from a remote store: an S3 gateway (versitygw, posix backend) behind throttle.py, which
  adds a one-way delay to every byte and one shared bandwidth limit;
- a real Alluxio (tools/alluxio, its alluxio.sh) configured as Fluid configures it:
  Fluid's controller writes the values of a runtime with the profile (fluid_values.py), Helm renders
  Fluid's runtime chart with them (tools/alluxio/localconf.py); the store mounted over S3: cold (the store read
  through Alluxio), and warm after `fs distributedLoad`, through a JNI-FUSE mount just started
  ("Alluxio-warm") and again through the same mount ("page-cache warm");
- the dl-training profile against fluid-defaults (Fluid's own defaults for the runtime), and one
  setting at a time against the fluid-defaults runtime (fluid_variants), the warm-up's listing
  among them, also after Fluid's metadata expiry;
- dl-training as the bundle deploys it (after the warm-up's listing) and, from dl-training, one FUSE
  option at a time taken away (kernel_cache; attr/entry timeouts), the client metadata cache turned
  off, and the client cache turned on (dl-training-client-cache).

The data set is shaped like the seeds' ImageNet, scaled to this machine: many small files
(~110 KB, an ImageNet JPEG's mean size) and TFRecord-like shards. The readers (reader.py) work
like a data loader: several threads, a new shuffled order every epoch. Writes the table into
docs/benchmarks.md (between its datapath markers), docs/benchmarks/datapath.json and
docs/benchmarks/datapath.png.
"""

import argparse
import collections
import datetime
import functools
import json
import os
import random
import re
import secrets
import shlex
import shutil
import socket
import statistics
import subprocess
import sys
import time

import yaml

from alluxio import localconf
from ansible_collections.fluidops.accel.plugins.module_utils.fluid import listing as dataset_listing
from bench import fuse_probe
from bench.fluid_values import PORTS, fluid_values
from bench.report import REPO, machine, pinned, publish

HERE = os.path.dirname(os.path.abspath(__file__))

CACHE = os.path.join(os.environ.get("FLUIDOPS_CACHE_DIR", os.path.expanduser("~/.cache/fluidops")))
LOCAL = os.path.join(CACHE, "localcluster")
WORK = os.path.join(CACHE, "datapath")
STATE = os.path.join(WORK, "alluxio")
HOST = "fluidops-bench"
ALLUXIO_SH = os.path.join(REPO, "tools", "alluxio", "alluxio.sh")
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
# training job's) has long done so. Each FUSE start is followed by reading other files, from a
# bucket of their own that stays loaded in Alluxio, in rounds until the JIT threads go quiet:
# HotSpot's C2 compiles a method after thousands of calls (Tier4InvocationThreshold 5000), and a
# file is about six FUSE operations.
WARMUP_BUCKET = "warmup"
WARMUP_FILES = 2400
WARMUP_ROUNDS = 6
JIT_QUIET = 0.05  # the JIT threads' share of a round's FUSE CPU under which the warm-up ends
# What the bench's FUSE processes have that Fluid's do not: their metrics served, for the bench to read.
FUSE_METRICS = "-Dalluxio.fuse.web.enabled=true"
BENCH_DIFFERENCES = ["the FUSE process serves its metrics on its web port (alluxio.fuse.web.enabled, off in Fluid's pods), "
                     "which the bench reads around each epoch"]
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


def fuse_root(bucket=BUCKET):
    """A bucket through the FUSE mount: the mount point Fluid's values give, the bucket at /<bucket>."""
    with open(os.path.join(STATE, "layout.env"), encoding="utf-8") as handle:
        settings = dict(line.rstrip("\n").split("=", 1) for line in handle if "=" in line)
    return shlex.split(settings["FUSE_MOUNT"])[0] + "/" + bucket


def in_host(*command, check=True):
    return run(["podman", "exec", HOST, *command], env=podman_env(), check=check)


# -- the data set ---------------------------------------------------------------------------
def make_dataset(small_files, shards, shard_mib):
    """Written once per shape into the store's bucket directory, with the readers' index files."""
    shape = "small%d-shards%dx%d-warmup%dx%d" % (small_files, shards, shard_mib, WARMUP_ROUNDS, WARMUP_FILES // WARMUP_ROUNDS)
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
    for bucket, files in ((BUCKET, small + large), (WARMUP_BUCKET, warmup)):
        for size, name in files:
            path = os.path.join(store, bucket, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(rng.randbytes(size))
    rounds = [("warmup-%d" % number, warmup[number::WARMUP_ROUNDS]) for number in range(WARMUP_ROUNDS)]
    for label, files in [("small", small), ("shards", large)] + rounds:
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


def start_alluxio(profile, values, store):
    """Alluxio up with the profile's values, its FUSE processes from now on serving their metrics,
    and the warm-up bucket mounted and loaded."""
    log("starting Alluxio with the %s profile (Fluid's values: %s)" % (profile, values))
    in_host("sh", "-c", "rm -rf /ram/alluxio/* /underFSStorage/*")
    run([ALLUXIO_SH, "up"], env=alluxio_env(values))
    with open(os.path.join(STATE, "conf", "alluxio-env.sh"), "a", encoding="utf-8") as handle:
        handle.write('# The bench reads the FUSE process\'s metrics.\nALLUXIO_FUSE_JAVA_OPTS="$ALLUXIO_FUSE_JAVA_OPTS %s"\n' % FUSE_METRICS)
    mount_store(store, "/" + WARMUP_BUCKET, WARMUP_BUCKET)
    alluxio_cli("fs", "distributedLoad", "/" + WARMUP_BUCKET)


def stop_alluxio():
    run([ALLUXIO_SH, "stop"], env=alluxio_env())


def remount_fuse():
    """A new FUSE process and mount, then the JVM's warm-up (not measured, other files): rounds of
    reads until the JIT threads took less than JIT_QUIET of a round's FUSE CPU. What the warm-up
    came to: its rounds, the JIT's share of the last one and how many of Alluxio's methods C2 had
    compiled."""
    run([ALLUXIO_SH, "remount-fuse"], env=alluxio_env())
    pid = fuse_pid()
    for number in range(WARMUP_ROUNDS):
        before = fuse_probe.cpu(in_host, pid)
        in_host("python3", "/bench/reader.py", "--index", "/index/warmup-%d" % number, "--threads", "8", "--root", fuse_root(WARMUP_BUCKET))
        spent = fuse_probe.cpu_spent(before, fuse_probe.cpu(in_host, pid))
        share = spent["JIT"] / spent["total"] if spent["total"] else 0.0
        if number and share < JIT_QUIET:
            break
    return {"rounds": number + 1, "jit_share": round(share, 3), "c2_methods": fuse_probe.c2_methods(in_host, pid)}


def mount_store(store, path="/bench", bucket=BUCKET):
    """A bucket at ``path``, read-only, as Fluid mounts an OSS or S3 dataset; a fresh mount has
    neither metadata nor blocks in Alluxio."""
    alluxio_cli("fs", "unmount", path, check=False)
    alluxio_cli("fs", "mount", "--readonly",
                "--option", "alluxio.underfs.s3.endpoint=%s" % store.url,
                "--option", "alluxio.underfs.s3.endpoint.region=us-east-1",
                "--option", "alluxio.underfs.s3.disable.dns.buckets=true",
                "--option", "alluxio.underfs.s3.inherit.acl=false",
                "--option", "s3a.accessKeyId=%s" % store.access, "--option", "s3a.secretKey=%s" % store.secret,
                path, "s3://%s/" % bucket, quiet=True)  # quiet: the command line holds the key


def machine_ticks():
    """(busy, total) clock ticks of all cores, from /proc/stat: the whole machine, whoever uses it."""
    with open("/proc/stat", encoding="utf-8") as handle:
        fields = [int(value) for value in handle.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle and iowait
    return sum(fields) - idle, sum(fields)


def fuse_pid():
    return open(os.path.join(STATE, "logs", HOST, "fuse.pid"), encoding="utf-8").read().strip()


def fuse_rss_mib():
    status = in_host("cat", "/proc/%s/status" % fuse_pid()).stdout
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))) // 1024


@functools.lru_cache(maxsize=1)
def host_address():
    return run(["podman", "container", "inspect", "-f", "{{.NetworkSettings.IPAddress}}", HOST], env=podman_env()).stdout.strip()


def fuse_look(cpu_first):
    """The FUSE JVM's CPU by thread and the FUSE client's and the worker's metrics, now. Serving
    its metrics costs the FUSE JVM CPU (JSON, and compiling that path): the CPU is read after them
    before an epoch (``cpu_first`` False) and before them after it, so that the epoch's CPU is its own."""
    look = {}
    if cpu_first:
        look["cpu"] = fuse_probe.cpu(in_host, fuse_pid())
    look.update(fuse=fuse_probe.metrics(host_address(), fuse_probe.FUSE_WEB_PORT), worker=fuse_probe.metrics(host_address(), PORTS["worker"]["web"]))
    if not cpu_first:
        look["cpu"] = fuse_probe.cpu(in_host, fuse_pid())
    return look


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
    before = fuse_look(cpu_first=False) if fuse else None
    machine = machine_ticks()
    done = in_host(*command)
    busy, total = [after - before for after, before in zip(machine_ticks(), machine)]
    result = json.loads(done.stdout)
    result["machine_busy"] = busy / total if total else 0.0
    result["mib_s"] = result["bytes"] / MIB / result["seconds"]
    result["files_s"] = result["files"] / result["seconds"]
    if fuse:
        after = fuse_look(cpu_first=True)
        result["fuse_cpu"] = fuse_probe.cpu_spent(before["cpu"], after["cpu"])
        result["fuse_cpu_s"] = result["fuse_cpu"]["total"]
        result["reads"] = fuse_probe.reads_between(before["fuse"], after["fuse"], before["worker"], after["worker"])
    return result


KEY_FILE = "/root/bench-s3-key"


def write_key(store):
    """The reader's S3 key, in a file of the host's only (never on a command line)."""
    process = subprocess.run(["podman", "exec", "-i", HOST, "sh", "-c", "umask 077; cat > %s" % KEY_FILE],
                             input="%s %s" % (store.access, store.secret), text=True, env=podman_env(), capture_output=True, check=False)
    if process.returncode:
        raise SystemExit("bench-datapath: could not write the reader's key file in %s" % HOST)


# -- the plan ---------------------------------------------------------------------------
# A warm case of the running profile: fuse.args and alluxio-env.sh as the functions ``args`` and
# ``env`` make them from the files' text (None: as they are), only the FUSE process started again
# with them; ``before()``, if given, runs after the FUSE warm-up and before each run's epochs, and
# returns what it took in seconds.
Variant = collections.namedtuple("Variant", "name note args env before", defaults=(None, None, None))


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

    def epochs(self, source, fuse=False, warmup=None):
        """Each workload once, each with a new shuffled order; the FUSE warm-up's outcome, if any,
        kept with the first."""
        results = {workload: epoch(source, workload, self.next_seed(), self.store, fuse) for workload in WORKLOADS}
        if warmup:
            results[next(iter(WORKLOADS))]["warmup"] = warmup
        return results

    def alluxio_cases(self, profile, label, variants=()):
        """Cold, Alluxio-warm and page-cache-warm through a given profile; then the variants on the
        warm cache, one at a time, and the warm case again at the end, so that drift shows."""
        start_alluxio(profile, self.values[profile], self.store)

        def cold():
            mount_store(self.store)
            warmup = remount_fuse()  # a new mount: no page cache, no client metadata cache
            return self.epochs(fuse_root(), fuse=True, warmup=warmup)

        self.case("Alluxio cold (%s)" % label, "cold", "the store read through Alluxio, after a fresh mount", cold)
        mount_store(self.store)
        began = time.monotonic()
        alluxio_cli("fs", "distributedLoad", "/bench")
        self.load_seconds[label] = round(time.monotonic() - began, 1)
        cached = alluxio_cli("fs", "du", "-s", "/bench").stdout
        log("distributedLoad took %.1f s: %s" % (self.load_seconds[label], " ".join(cached.split()[-4:])))
        baseline = "Alluxio warm (%s)" % label
        self.warm_case(Variant(baseline, "after distributedLoad, a FUSE mount just started"), baseline=baseline)
        for variant in variants:
            try:
                self.warm_case(variant, baseline=baseline)
            except SystemExit as error:  # a variant that breaks is a finding: the others still run
                message = str(error)[-400:]
                if "OutOfMemoryError" in in_host("cat", "%s/logs/%s/fuse.out" % ("/opt/alluxio/state", HOST), check=False).stdout:
                    message += " (the FUSE JVM ran out of heap: OutOfMemoryError in fuse.out, at %d MiB RSS)" % fuse_rss_mib()
                log("  FAILED: %s" % message)
                self.cases.append({"name": variant.name, "group": "warm", "note": variant.note, "error": message, "baseline": baseline})
        if variants:
            self.warm_case(Variant(baseline + ", again at the end", "the baseline measured again after its variants"), baseline=baseline)
        stop_alluxio()

    def warm_case(self, variant, baseline):
        args_path = os.path.join(STATE, "fuse.args")
        env_path = os.path.join(STATE, "conf", "alluxio-env.sh")
        saved_args = open(args_path, encoding="utf-8").read()
        saved_env = open(env_path, encoding="utf-8").read()
        try:
            if variant.args:
                with open(args_path, "w", encoding="utf-8") as handle:
                    handle.write(variant.args(saved_args))
            if variant.env:
                with open(env_path, "w", encoding="utf-8") as handle:
                    handle.write(variant.env(saved_env))
            fresh, again, before = {}, {}, []

            def first():
                warmup = remount_fuse()
                if variant.before:
                    before.append(variant.before())
                results = self.epochs(fuse_root(), fuse=True, warmup=warmup)
                again.update(self.epochs(fuse_root(), fuse=True))  # the same mount, a second epoch
                for workload, result in again.items():
                    fresh.setdefault(workload, []).append(result)
                return results

            entry = self.case(variant.name, "warm", variant.note, first)
            entry.update(fuse_rss_mib=fuse_rss_mib(), baseline=baseline)
            if before:
                entry["before_seconds"] = round(statistics.median(before), 1)
            entry = {"name": variant.name + ", 2nd epoch", "group": "page", "note": "the same FUSE mount read again: kernel page cache "
                     "and client caches warm", "results": fresh, "baseline": baseline + ", 2nd epoch"}
            self.cases.append(entry)
            for workload, results in fresh.items():
                log("  2nd epoch %-6s median %8.1f MiB/s" % (workload, statistics.median(r["mib_s"] for r in results)))
        finally:
            with open(args_path, "w", encoding="utf-8") as handle:
                handle.write(saved_args)
            with open(env_path, "w", encoding="utf-8") as handle:
                handle.write(saved_env)


def fuse_options(remove=(), add=()):
    """fuse.args with those --fuse-opts entries taken out (by name) and others added."""
    def transform(text):
        lines = []
        for line in text.splitlines():
            if line.startswith("--fuse-opts="):
                options = [o for o in line.split("=", 1)[1].split(",") if o.split("=", 1)[0] not in remove]
                line = "--fuse-opts=" + ",".join(options + list(add))
            lines.append(line)
        return "\n".join(lines) + "\n"
    return transform


def fuse_jvm(*words, replace=None):
    """alluxio-env.sh with WORDS added last to the FUSE JVM's options (the JVM takes the last -D
    and -XX of a name); ``replace``: (old, new) words of the options changed first, which must be
    there."""
    def transform(text):
        if replace:
            # A whole word of the options, which are double-quoted shell words.
            text, found = re.subn(r'(?<![^\s"])%s(?![^\s"])' % re.escape(replace[0]), replace[1], text)
            if not found:
                raise SystemExit("bench-datapath: the FUSE JVM has no option %s to replace" % replace[0])
        return text + 'ALLUXIO_FUSE_JAVA_OPTS="$ALLUXIO_FUSE_JAVA_OPTS %s"\n' % " ".join(words)
    return transform


def listing():
    """The warm-up's listing (fluid_dataset_listing's script: ls -lR, a lookup and a getattr of every
    file) through the FUSE mount: the kernel's entries and attributes and the client's metadata
    cache filled, as on each GPU node after the bundle's warm-up. Its seconds."""
    began = time.monotonic()
    found = in_host("sh", "-c", dataset_listing.SCRIPT, fuse_root()).stdout.strip()
    if not found.isdigit() or not int(found):
        raise SystemExit("bench-datapath: the listing through %s found no file (%s)" % (fuse_root(), found[-200:]))
    return time.monotonic() - began


def listing_then_expired():
    """The warm-up's listing, then the client metadata cache's entries older than its expiry, as a
    training that starts after it finds them (the variant sets a 1 s expiry). Its seconds."""
    seconds = listing()
    time.sleep(METADATA_EXPIRED_SECONDS)
    return seconds


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
    run([sys.executable, "-m", "alluxio.localconf", "--values", values, "--out", out,
         "--master-host", master_host, "--helm", os.path.join(LOCAL, "helm"), "--chart", os.path.join(LOCAL, "fluid", "charts", "alluxio")])
    text = open(os.path.join(out, "conf", "alluxio-env.sh"), encoding="utf-8").read()
    text = text.replace(names[0], names[1])
    return lambda _: text + 'ALLUXIO_FUSE_JAVA_OPTS="$ALLUXIO_FUSE_JAVA_OPTS %s"\n' % FUSE_METRICS


def fluid_property(values_path, key):
    """The value Fluid's values give an Alluxio property (its `properties`), or None."""
    with open(values_path, encoding="utf-8") as handle:
        return (yaml.safe_load(handle).get("properties") or {}).get(key)


def fluid_variants(values_path):
    """One setting at a time against the Fluid-configured runtime (profile fluid-defaults)."""
    direct = fluid_property(values_path, "alluxio.user.direct.memory.io.enabled") == "true"
    libfuse = fluid_property(values_path, "alluxio.fuse.jnifuse.libfuse.version")
    return [
        Variant("short-circuit off (gRPC from the worker)", "alluxio.user.short.circuit.enabled=false for FUSE: every block "
                "streamed by the worker over gRPC", env=fuse_jvm("-Dalluxio.user.short.circuit.enabled=false")),
        Variant("direct memory IO %s" % ("off" if direct else "on"), "alluxio.user.direct.memory.io.enabled=%s for FUSE: the "
                "client opens the block file itself, without asking the worker" % ("false" if direct else "true"),
                env=fuse_jvm("-Dalluxio.user.direct.memory.io.enabled=%s" % ("false" if direct else "true"))),
        Variant(LISTED, "the warm-up's listing through the FUSE mount before the epoch (ls -lR, as fluid_dataset_listing "
                "runs it on each GPU node)", before=listing),
        Variant(LISTED_EXPIRED, "the listing, then its client metadata cache entries expired, as for a training that starts "
                "more than Fluid's 10 minutes (alluxio.user.metadata.cache.expiration.time) after the warm-up: a 1 s expiry "
                "here; the kernel's entries (7200 s) still hold", env=fuse_jvm("-Dalluxio.user.metadata.cache.expiration.time=1s"),
                before=listing_then_expired),
        Variant("libfuse %s" % ("2" if libfuse == "3" else "3"), "alluxio.fuse.jnifuse.libfuse.version for FUSE",
                env=fuse_jvm("-Dalluxio.fuse.jnifuse.libfuse.version=%s" % ("2" if libfuse == "3" else "3"))),
        Variant("max_idle_threads=8", "libfuse 3's idle worker threads at the readers' 8 (Alluxio passes 64)",
                args=fuse_options(add=["max_idle_threads=8"])),
        Variant("Parallel GC instead of G1", "the FUSE JVM's collector", env=fuse_jvm(replace=("-XX:+UseG1GC", "-XX:+UseParallelGC"))),
        Variant("ActiveProcessorCount=24", "the dawnbench sample's, for the FUSE JVM's pools (this machine's %d otherwise)"
                % os.cpu_count(), env=fuse_jvm("-XX:ActiveProcessorCount=24")),
        Variant("max_read 1 MiB", "FUSE option max_read=1048576 instead of 131072, for 1 MiB requests where libfuse 3 asks the "
                "kernel for 256 pages a request (Alluxio 2.9.3 drops direct_io under libfuse 3: 'FUSE 3 does not support "
                "direct_io mount option')", args=fuse_options(remove=["max_read"], add=["max_read=1048576"])),
        Variant("worker client pool min 0", "alluxio.user.block.worker.client.pool.min=0 (Alluxio's default) for FUSE, "
                "where Fluid sets 512", env=fuse_jvm("-Dalluxio.user.block.worker.client.pool.min=0")),
    ]


# -- the report ---------------------------------------------------------------------------
def short_circuit(values_path):
    """Fluid's short-circuit setting in its values, as words."""
    with open(values_path, encoding="utf-8") as handle:
        setting = yaml.safe_load(handle).get("shortCircuit") or {}
    if not setting.get("enable", setting.get("enabled")):
        return "off"
    return "on, policy %s (the FUSE client reads the worker's block files on the same host)" % setting.get("policy", "?")


def median_of(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summary(results):
    speeds = sorted(r["mib_s"] for r in results)
    row = {"runs": len(results), "median_mib_s": round(statistics.median(speeds), 1), "min_mib_s": round(speeds[0], 1),
           "max_mib_s": round(speeds[-1], 1), "median_files_s": round(statistics.median(r["files_s"] for r in results), 1)}
    row["machine_busy"] = round(statistics.median(r.get("machine_busy", 0.0) for r in results), 2)
    cpu = [r for r in results if "fuse_cpu_s" in r]
    if cpu:
        row["fuse_cores"] = round(statistics.median(r["fuse_cpu_s"] / r["seconds"] for r in cpu), 2)  # CPU s per s of reading
        row["fuse_cpu_ms_per_file"] = round(statistics.median(1000 * r["fuse_cpu_s"] / r["files"] for r in cpu), 2)
        row["fuse_ms_per_file_by"] = {group: round(statistics.median(1000 * r["fuse_cpu"][group] / r["files"] for r in cpu), 3)
                                      for group in fuse_probe.GROUPS}
        row["fuse_ms_per_file_without_jit"] = round(statistics.median(1000 * (r["fuse_cpu"]["total"] - r["fuse_cpu"]["JIT"]) / r["files"]
                                                                      for r in cpu), 3)
        ops = median_of(sum(r["reads"]["fuse_ops"].values()) / r["files"] if "fuse_ops" in r.get("reads", {}) else None for r in cpu)
        if ops is not None:
            row["fuse_ops_per_file"] = round(ops, 2)
        for key, name in (("local_bytes", "short_circuit_share"), ("grpc_bytes", "grpc_share")):
            share = median_of(r["reads"][key] / r["bytes"] if key in r.get("reads", {}) else None for r in cpu)
            if share is not None:
                row[name] = round(share, 3)
    warmups = [r["warmup"] for r in results if "warmup" in r]
    if warmups:
        row["warmup"] = {key: median_of(w[key] for w in warmups) for key in ("rounds", "jit_share", "c2_methods")}
    return row


def by_name(cases):
    return {c["name"]: c["summary"] for c in cases if "summary" in c}


def ratio(cases, numerator, denominator, workload):
    """The ratio of two cases' median MiB/s, or None when either is missing (a variant that broke)."""
    summaries = by_name(cases)
    if numerator not in summaries or denominator not in summaries:
        return None
    return round(summaries[numerator][workload]["median_mib_s"] / summaries[denominator][workload]["median_mib_s"], 2)


WARM, DEFAULTS = "Alluxio warm (dl-training)", "Alluxio warm (fluid-defaults)"
# As the bundle deploys a profile: the warm-up lists each dataset on every GPU node (warmup_list).
# Fluid's defaults keep a client's metadata 10 minutes, so a training that starts later finds the
# listing's entries expired; dl-training keeps them 2 days.
LISTED, LISTED_EXPIRED = "listing after the load", "listing, then the metadata cache expired"
DEPLOYED = "dl-training as deployed (after the warm-up's listing)"
METADATA_EXPIRED_SECONDS = 2
DIRECT, REMOTE = "direct ramfs", "remote store (S3, throttled)"


def goals(cases):
    """Issue 27's goals, each a value of this run against its target: as the bundle deploys the
    profile (after the warm-up's listing) and on a plain warm mount."""
    summaries = by_name(cases)

    def ms_per_file(name):
        return (summaries.get(name) or {}).get("small", {}).get("fuse_cpu_ms_per_file")

    rows = [
        {"goal": "warm first epoch of small files >= 5x the throttled store", "value": ratio(cases, DEPLOYED, REMOTE, "small"),
         "plain": ratio(cases, WARM, REMOTE, "small"), "target": 5.0},
        {"goal": "FUSE CPU per warm small file <= 0.6 ms", "value": ms_per_file(DEPLOYED), "plain": ms_per_file(WARM),
         "target": 0.6, "unit": "ms", "at_most": True},
        {"goal": "dl-training >= 2x the Fluid-configured defaults, warm first epoch of small files",
         "value": ratio(cases, DEPLOYED, LISTED_EXPIRED, "small"), "plain": ratio(cases, WARM, DEFAULTS, "small"), "target": 2.0,
         "note": "as deployed: the defaults' training starting after their 10-minute metadata expiry; within it %sx" % cell(
             ratio(cases, DEPLOYED, LISTED, "small"))},
        {"goal": "shards warm >= 0.3x direct ramfs", "value": ratio(cases, DEPLOYED, DIRECT, "shards"),
         "plain": ratio(cases, WARM, DIRECT, "shards"), "target": 0.3},
    ]
    for row in rows:
        value = row["value"]
        row["met"] = value is not None and (value <= row["target"] if row.get("at_most") else value >= row["target"])
    return rows


def settings(cases):
    """Each variant against the warm case of its profile: the ratio of medians of the small files'
    and the shards' first epoch, FUSE CPU per file, and a verdict that counts the baseline's own
    drift (measured again at the end) as noise."""
    summaries = by_name(cases)
    rows = []
    for case in cases:
        baseline = case.get("baseline")
        if case.get("group") != "warm" or not baseline or case["name"].startswith(baseline):
            continue
        row = {"setting": case["name"], "against": baseline, "note": case["note"]}
        if "error" in case:
            rows.append(dict(row, error=case["error"]))
            continue
        again = summaries.get(baseline + ", again at the end")
        drift = abs(again["small"]["median_mib_s"] / summaries[baseline]["small"]["median_mib_s"] - 1) if again else 0.0
        row.update(small=ratio(cases, case["name"], baseline, "small"), shards=ratio(cases, case["name"], baseline, "shards"),
                   ms_per_file=summaries[case["name"]]["small"].get("fuse_cpu_ms_per_file"),
                   baseline_ms_per_file=summaries[baseline]["small"].get("fuse_cpu_ms_per_file"), noise=round(max(0.05, drift), 2))
        if "before_seconds" in case:
            row["before_seconds"] = case["before_seconds"]
        row["verdict"] = ("helps" if row["small"] > 1 + row["noise"] else "hurts" if row["small"] < 1 - row["noise"]
                          else "no effect here")
        rows.append(row)
    return rows


def floor(cases):
    """The cheapest FUSE CPU per operation among the warm first epochs (µs), and what a file would
    cost at that rate with its five operations at least (lookup, open, read, flush, release)."""
    per_op = [s["small"]["fuse_cpu_ms_per_file"] / s["small"]["fuse_ops_per_file"] for name, s in by_name(cases).items()
              if name.startswith("Alluxio warm") and "2nd epoch" not in name and s["small"].get("fuse_ops_per_file")]
    if not per_op:
        return None
    cheapest = min(per_op)
    return {"us_per_op": round(1000 * cheapest, 1), "ms_per_file": round(5 * cheapest, 3)}


# A node of the seeds' 4 x 8 V100 run (seed 003, warm, images/sec at the last step, over four
# nodes), and what one image is on disk: ImageNet's mean JPEG, the data set's small files' mean.
SEED_IMAGES_PER_NODE = 21329 / 4
IMAGE_BYTES = 110 * 1000
SIZING_MARGIN = 1.5


def sizing(cases):
    """The FUSE CPU a node feeding 8 V100s needs, from this run's warm first epoch of the profile
    as deployed (after the warm-up's listing; its plain warm case if that failed): one file per
    image (the small files' FUSE CPU per file) and TFRecord shards (their MiB/s per FUSE core),
    with SIZING_MARGIN."""
    summaries = by_name(cases)
    warm = summaries.get(DEPLOYED) or summaries[WARM]
    small, shards = warm["small"], warm["shards"]
    if not small.get("fuse_cpu_ms_per_file") or not shards.get("fuse_cores"):
        return None
    need_mib_s = SEED_IMAGES_PER_NODE * IMAGE_BYTES / MIB
    per_core_files, per_core_mib = 1000 / small["fuse_cpu_ms_per_file"], shards["median_mib_s"] / shards["fuse_cores"]
    settled = small.get("fuse_ms_per_file_without_jit") or small["fuse_cpu_ms_per_file"]
    return {"images_per_sec": round(SEED_IMAGES_PER_NODE), "mib_per_sec": round(need_mib_s), "margin": SIZING_MARGIN,
            "files_per_core": round(per_core_files), "cores_small_files": round(SEED_IMAGES_PER_NODE / per_core_files * SIZING_MARGIN, 1),
            "cores_small_files_settled": round(SEED_IMAGES_PER_NODE * settled / 1000 * SIZING_MARGIN, 1),
            "mib_per_core": round(per_core_mib), "cores_shards": round(need_mib_s / per_core_mib * SIZING_MARGIN, 1)}


def bounds(report):
    """What bounds each goal, in the run's own figures."""
    summaries = by_name(report["cases"])
    warm, second = summaries[WARM], summaries[WARM + ", 2nd epoch"]
    direct, remote, defaults = summaries[DIRECT], summaries[REMOTE], summaries[DEFAULTS]
    small = warm["small"]
    split = small.get("fuse_ms_per_file_by") or {}
    largest = sorted(split.items(), key=lambda item: -item[1])[:2]
    threads = WORKLOADS["small"]["threads"]
    if small["machine_busy"] >= 0.9:
        busy = "the machine's cores were %.0f%% busy: the per-file work on %d cores is the bound" % (100 * small["machine_busy"], report["cpus"])
    else:
        busy = ("the machine's cores were only %.0f%% busy, so the bound is the wait in the round trips: each of the %d reader "
                "threads spent %.1f ms per file" % (100 * small["machine_busy"], threads, 1000 * threads / small["median_files_s"]))
    lines = [
        "- *Against the store*: warm small files come at %.0f files/s, %.2fx the throttled store's %.0f (%s). Each file is "
        "%s FUSE operations into the JNI-FUSE JVM, which spent %.2f ms of CPU on it (%.2f cores; most in %s); %s." % (
            small["median_files_s"], small["median_mib_s"] / remote["small"]["median_mib_s"], remote["small"]["median_files_s"],
            report["store"].split(": ", 1)[1], small.get("fuse_ops_per_file", "?"), small.get("fuse_cpu_ms_per_file", 0),
            small.get("fuse_cores", 0), " and ".join("%s threads %.2f ms" % item for item in largest) or "?", busy)]
    if report.get("floor"):
        lines.append(
            "- *FUSE CPU per file*: at the cheapest rate this run measured, %.1f µs of FUSE CPU per operation, a file's five "
            "operations at least would cost %.2f ms: the floor of a first read through FUSE on this JVM. The profile's warm "
            "first epoch is at %.2f ms, %.1fx that floor; the defaults' at %.2f ms. Of the profile's, %.2f ms is the JIT "
            "compiler threads': after its %s warm-up rounds the JIT still took %.0f%% of a round, so C2 was still compiling "
            "(gRPC, protobuf, netty and Alluxio's client paths, one C2 thread on %d cores); without it a file costs %.2f ms, "
            "what a long-running FUSE pays at most." % (
                report["floor"]["us_per_op"], report["floor"]["ms_per_file"], small.get("fuse_cpu_ms_per_file", 0),
                small.get("fuse_cpu_ms_per_file", 0) / report["floor"]["ms_per_file"], defaults["small"].get("fuse_cpu_ms_per_file", 0),
                split.get("JIT", 0), cell((small.get("warmup") or {}).get("rounds"), "%.0f"),
                100 * ((small.get("warmup") or {}).get("jit_share") or 0), report["cpus"], small.get("fuse_ms_per_file_without_jit", 0)))
    helped = [row["setting"] for row in report["settings"] if row.get("verdict") == "helps"]
    lines.append(
        "- *Profile against the Fluid-configured defaults*: on a new mount's first epoch dl-training gives %.2fx the defaults on "
        "small files. Fluid already sets what serves a read-only data set (kernel_cache, 7200 s entry and attribute timeouts, "
        "the client metadata cache, short-circuit reads%s); what a setting alone changed is in the table above%s." % (
            small["median_mib_s"] / defaults["small"]["median_mib_s"],
            ", direct memory IO" if report.get("direct_memory_io") else "",
            ": %s helped" % ", ".join(helped) if helped else ", and none helped beyond the baseline's drift"))
    deployed = summaries.get(DEPLOYED)
    if deployed and LISTED in summaries and LISTED_EXPIRED in summaries:
        lines.append(
            "- *As deployed*: the warm-up's listing is the lever. After it, dl-training's first epoch reads %.0f files/s at %s ms "
            "of FUSE CPU a file (%s FUSE operations a file: the kernel answers the lookups, the client cache the rest). The "
            "defaults get the same listing (%.2fx dl-training as deployed) while their client metadata lasts, 10 minutes; a "
            "training that starts later finds it expired and gets %.2fx, where dl-training keeps it 2 days. The listing took "
            "%s s for %s files here." % (
                deployed["small"]["median_files_s"], cell(deployed["small"].get("fuse_cpu_ms_per_file")),
                cell(deployed["small"].get("fuse_ops_per_file")), ratio(report["cases"], LISTED, DEPLOYED, "small"),
                ratio(report["cases"], LISTED_EXPIRED, DEPLOYED, "small"),
                cell(next((c.get("before_seconds") for c in report["cases"] if c["name"] == DEPLOYED), None), "%.1f"),
                report["dataset"].split()[0]))
    larger = next((row for row in report["settings"] if row["setting"].startswith("max_read") and "error" not in row), None)
    lines.append(
        "- *Shards against direct*: warm shards come at %.0f MiB/s, %.2fx the ramfs's %.0f; FUSE hands the reader at most "
        "max_read bytes per read (128 KiB), so a 1 MiB record is 8 round trips into the JVM (%.2f FUSE cores). The second "
        "epoch, from the kernel page cache, reaches %.2fx direct.%s" % (
            warm["shards"]["median_mib_s"], warm["shards"]["median_mib_s"] / direct["shards"]["median_mib_s"],
            direct["shards"]["median_mib_s"], warm["shards"].get("fuse_cores", 0),
            second["shards"]["median_mib_s"] / direct["shards"]["median_mib_s"],
            " With max_read at 1 MiB the defaults' shards went %.2fx and their small files %.2fx: %s." % (
                larger["shards"], larger["small"],
                "fewer, larger requests pay" if larger["shards"] > 1 + larger["noise"] else "the request size is not the bound")
            if larger else ""))
    return lines


def cell(value, form="%.2f"):
    return "-" if value is None else form % value


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
             "Short-circuit reads as Fluid set them: %s. Where the processes still differ from Fluid's pods: %s." % (
                 report["fluid"], report["short_circuit"], "; ".join(report["differences"])),
             "- **FUSE warm-up**: every case through FUSE starts a new FUSE process and mount (no page cache, no client caches), "
             "which then reads other files, loaded in Alluxio and not measured, %d at a time, until its JIT compiler threads took "
             "less than %.0f%% of a round's FUSE CPU (at most %d rounds), as a long-running FUSE has compiled its read path." % (
                 WARMUP_FILES // WARMUP_ROUNDS, 100 * JIT_QUIET, WARMUP_ROUNDS),
             "- **Cases**: *cold* is a fresh mount of the store (no metadata, no blocks in Alluxio); *warm* comes after "
             "`fs distributedLoad` of the whole set; *2nd epoch* reads the set again through the same FUSE mount (kernel page "
             "cache and client caches warm), so Alluxio-warm and page-cache-warm are apart. Each setting is measured alone "
             "against its profile's warm case, which is measured again at the end.",
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
            cell(small.get("fuse_cpu_ms_per_file")), busy, case.get("fuse_rss_mib", "-")))
    lines += ["", "FUSE cores: the FUSE JVM's CPU seconds per second of reading (small/shards), on a %d-core machine. "
              "FUSE CPU ms/file: its CPU time per small file. Cores busy: the whole machine's (small/shards). FUSE RSS: after "
              "the case's runs." % report["cpus"],
              "`fs distributedLoad` of the whole set took %s." % ", ".join("%s s (%s)" % (v, k) for k, v in report["load_seconds"].items()),
              "", "### FUSE CPU per small file, by thread", "",
              "| case | ms/file | FUSE threads | gRPC, netty | JIT | GC, VM | other | FUSE ops/file | µs/op | short-circuit bytes "
              "| gRPC bytes | warm-up rounds, JIT share | C2-compiled Alluxio methods |", "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for case in report["cases"]:
        small = (case.get("summary") or {}).get("small") or {}
        split = small.get("fuse_ms_per_file_by")
        if not split:
            continue
        warmup = small.get("warmup") or {}
        ops = small.get("fuse_ops_per_file")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            case["name"], cell(small["fuse_cpu_ms_per_file"]), cell(split["FUSE"], "%.3f"), cell(split["gRPC"], "%.3f"),
            cell(split["JIT"], "%.3f"), cell(split["GC"], "%.3f"), cell(split["other"], "%.3f"), cell(ops),
            cell(1000 * small["fuse_cpu_ms_per_file"] / ops if ops else None, "%.0f"),
            cell(100 * small["short_circuit_share"] if "short_circuit_share" in small else None, "%.0f%%"),
            cell(100 * small["grpc_share"] if "grpc_share" in small else None, "%.0f%%"),
            "%s, %s" % (cell(warmup.get("rounds"), "%.0f"), cell(100 * warmup["jit_share"] if warmup.get("jit_share") is not None else None, "%.0f%%")),
            cell(warmup.get("c2_methods"), "%.0f")))
    lines += ["", "The FUSE JVM's CPU time in the first epoch of the small files, by its threads' names (tools/bench/fuse_probe.py): "
              "FUSE threads are libfuse's, which call into Java; a thread that ended during the epoch counts in other. Bytes: "
              "shares of what the readers read, from Alluxio's own counters (Client.BytesReadLocal of the FUSE client; "
              "Worker.BytesReadRemote and .BytesReadDomain of the worker). The warm-up columns: its rounds, the JIT's share of the "
              "last, and the Alluxio methods C2 had compiled after it (jcmd Compiler.codelist, level 4).",
              "", "### One setting at a time", "",
              "| setting | against | small files | shards | FUSE CPU ms/file | verdict |", "|---|---|---|---|---|---|"]
    for row in report["settings"]:
        if "error" in row:
            lines.append("| %s (%s) | %s | failed | | | |" % (row["setting"], row["note"], row["against"]))
            continue
        lines.append("| %s (%s)%s | %s | %.2fx | %.2fx | %s (from %s) | %s |" % (
            row["setting"], row["note"], "; it took %.1f s before the epoch" % row["before_seconds"] if "before_seconds" in row else "",
            row["against"], row["small"], row["shards"], cell(row["ms_per_file"]), cell(row["baseline_ms_per_file"]), row["verdict"]))
    lines += ["", "Ratios of medians of the first epoch against the profile's warm case. A setting helps or hurts when it moves the "
              "small files' rate by more than the baseline's own drift between its first measure and the one at the end (5% "
              "at least).", "", "| goal | as deployed | met | plain warm mount |", "|---|---|---|---|"]
    for row in report["goals"]:
        form = "%.2f ms" if row.get("unit") == "ms" else "%.2fx"
        note = " (%s)" % row["note"] if row.get("note") else ""
        met = "yes" if row["met"] else "**no**"
        lines.append("| %s | %s%s | %s | %s |" % (row["goal"], cell(row["value"], form), note, met, cell(row.get("plain"), form)))
    lines += ["", "As deployed: dl-training after the warm-up's listing, on the FUSE mount that listed (%s); plain: its warm "
              "case, a FUSE mount just started after distributedLoad." % DEPLOYED]
    lines += ["", "What bounds each goal:", ""] + bounds(report)
    if report.get("sizing"):
        lines += ["", "### FUSE for a node of 8 V100s", "",
                  "A node of the seeds' 4 x 8 V100 run reads %(images_per_sec)d images/s (seed 003, warm, last step), %(mib_per_sec)d "
                  "MiB/s of 110 KB images. At this run's rates of dl-training as deployed, with %(margin).1fx margin: one file per image, %(files_per_core)d "
                  "files/s per FUSE core, needs **%(cores_small_files).1f cores** with the JIT still compiling as in this run, "
                  "%(cores_small_files_settled).1f without the JIT threads' time (a long-running FUSE's, at most); TFRecord shards, "
                  "%(mib_per_core)d MiB/s per FUSE core, need **%(cores_shards).1f cores**." % report["sizing"]]
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
        bench.alluxio_cases("fluid-defaults", "fluid-defaults", fluid_variants(values["fluid-defaults"]))
        bench.alluxio_cases("dl-training", "dl-training", [
            Variant(DEPLOYED, "after distributedLoad and the warm-up's listing (warmup_list, ls -lR through the claim on each "
                    "GPU node), the FUSE mount that listed", before=listing),
            Variant("dl-training without kernel_cache", "FUSE option taken out", args=fuse_options(remove=["kernel_cache"])),
            Variant("dl-training without attr/entry timeouts", "FUSE options taken out",
                    args=fuse_options(remove=["attr_timeout", "entry_timeout"])),
            Variant("dl-training without the metadata cache", "alluxio.user.metadata.cache.enabled=false for FUSE",
                    env=fuse_jvm("-Dalluxio.user.metadata.cache.enabled=false")),
            Variant("dl-training with the client cache", "profile dl-training-client-cache (2000MB MEM page store in the FUSE JVM)",
                    env=profile_env(values["dl-training-client-cache"], values["dl-training"], host_address())),
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
        "differences": localconf.DIFFERENCES + BENCH_DIFFERENCES, "alluxio": "2.9.3",
        "java": run(["java", "-version"]).stderr.splitlines()[0].strip(), "runs": args.runs,
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
    report["settings"] = settings(report["cases"])
    report["floor"] = floor(report["cases"])
    report["sizing"] = sizing(report["cases"])
    report["direct_memory_io"] = fluid_property(values["fluid-defaults"], "alluxio.user.direct.memory.io.enabled") == "true"
    path = publish(args.doc, "datapath", report, chart, markdown(report), MARK_BEGIN, MARK_END)
    log("done in %d s: %s, %s" % (report["seconds"], args.doc, path))
    for row in report["goals"]:
        log("%-50s %6s %s" % (row["goal"], cell(row["value"]), "met" if row["met"] else "missed"))


def podman_running_cluster():
    done = run(["podman", "ps", "--filter", "label=fluidops.local=host", "--format", "{{.Names}}"], env=podman_env(), check=False)
    return bool(done.stdout.strip())


if __name__ == "__main__":
    main()
