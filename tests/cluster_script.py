"""The local cluster as tests/cluster and tests/nodes drive it: cluster.sh, its node hosts'
names, the processes of one cluster, and waiting for a condition (a cap on the wait, never a
duration to sleep)."""

import os
import subprocess
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(REPO, "tools", "localcluster", "cluster.sh")
NODES = ["gpu-node-1", "gpu-node-2", "gpu-node-3", "gpu-node-4"]
# The pinned swagger and CRDs the shipped schemas come from, one path a line.
SOURCES = os.path.join(REPO, "tools", "kubeconform", "sources.sh")


def pinned_source(file_name):
    """The path of a pinned schema source by its file name (sources.sh fetches it once), such as the
    CRD a test installs: monitoring.coreos.com_servicemonitors.yaml."""
    done = subprocess.run([SOURCES], capture_output=True, text=True, check=False)
    assert done.returncode == 0, "sources.sh exited %d:\n%s" % (done.returncode, done.stderr[-4000:])
    found = [path for path in done.stdout.splitlines() if os.path.basename(path) == file_name]
    assert len(found) == 1, "sources.sh lists %d files named %s:\n%s" % (len(found), file_name, done.stdout)
    return found[0]


def host_of(node, instance=0):
    """The podman container of a node host, as tools/localcluster/instance.sh names it."""
    return "fluidops%d-%s" % (instance, node) if instance else node


def container_ids(names):
    """The ids of those of the containers that exist."""
    done = subprocess.run(["podman", "container", "inspect", "--format", "{{.Id}}", *names], capture_output=True, text=True,
                          check=False)
    return done.stdout.split()


def processes_of(run_dir, containers=()):
    """{pid: command line} of one local cluster's processes on this machine: those whose command
    line or environment names its state directory (every component cluster.sh starts, and what
    they start), and those in its node host containers (by the ids CONTAINERS, in their cgroups).
    The other clusters beside it (FLUIDOPS_CLUSTER_INSTANCE) are not looked at."""
    marks = [(run_dir + "/").encode(), (run_dir + "\0").encode()]
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as handle:
                cmdline = handle.read()
            with open("/proc/%s/environ" % pid, "rb") as handle:
                named = cmdline + b"\0" + handle.read() + b"\0"
            with open("/proc/%s/cgroup" % pid, encoding="ascii") as handle:
                cgroups = handle.read()
        except OSError:  # it ended meanwhile
            continue
        if int(pid) != os.getpid() and (any(mark in named for mark in marks) or any(ident in cgroups for ident in containers)):
            found[int(pid)] = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
    return found


def cluster(*args, env=None):
    done = subprocess.run([CLUSTER, *args], capture_output=True, text=True, check=False, env=env)
    # cluster.sh says on stderr what it waited for and why it stopped: show it, not only the exit code.
    assert done.returncode == 0, "cluster.sh %s exited %d:\n%s" % (" ".join(args), done.returncode, done.stderr[-4000:])
    return done


def up(env=None):
    """cluster.sh up; when it fails, what it started is taken down (its logs kept in last-logs)
    before the failure is raised: a fixture's teardown does not run after a failed setup."""
    try:
        return cluster("up", env=env)
    except AssertionError:
        subprocess.run([CLUSTER, "down"], capture_output=True, check=False, env=env)
        raise


# The tests' caps are what a quiet machine needs; they wait this many times as long, since make
# test runs its suites side by side on two cores, maybe beside another build, where a JVM's start,
# a controller's pass or an API call takes several times longer. Only a failure waits the cap.
BUSY_MACHINE = 4


def wait_until(predicate, seconds=60, every=0.5, what="condition"):
    """The predicate's first true value, looked for until SECONDS (times BUSY_MACHINE) have passed."""
    seconds *= BUSY_MACHINE
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError("%s not met in %d s" % (what, seconds))
