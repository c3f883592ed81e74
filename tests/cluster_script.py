"""The local cluster as tests/cluster and tests/nodes drive it: cluster.sh, its node hosts'
names, and waiting for a condition (a cap on the wait, never a duration to sleep)."""

import os
import subprocess
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(REPO, "tools", "localcluster", "cluster.sh")
NODES = ["gpu-node-1", "gpu-node-2", "gpu-node-3", "gpu-node-4"]


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


def wait_until(predicate, seconds=60, every=0.5, what="condition"):
    """The predicate's first true value, looked for until SECONDS have passed."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError("%s not met in %d s" % (what, seconds))
