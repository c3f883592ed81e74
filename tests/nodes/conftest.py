"""The local cluster with real nodes (FLUIDOPS_NODES=real): the four node hosts run containerd,
kubelets and kube-proxy, and every pod really runs. It comes up once for tests/nodes, after the
VM-wide sysctls the kubelet would set are read, and test_zz_down.py takes it down last. It is a
second instance (FLUIDOPS_CLUSTER_INSTANCE=1: its own state, ports and host containers), so that
make test runs this suite beside tests/cluster's cluster. site.yml runs once, whole, with the local
inventory (site_run); the test files in name order: test_phases*.py read and change the converged
deployment and leave it converged, test_real_nodes.py makes the failures, test_runbooks.py follows
the runbooks and tears the deployment down. Every playbook run of this process takes this cluster
(FLUIDOPS_CLUSTER_INSTANCE, which inventory/local follows)."""

import hashlib
import os
import subprocess

import pytest
from kubernetes import config

import cluster_script
from cluster_script import CLUSTER, NODES, REPO, wait_until  # noqa: F401  pylint: disable=unused-import  # the tests' imports
from playbook import PARTS, run_playbook
from pods import DATASET, kubectl
from run_warnings import no_unlisted_warnings  # noqa: F401  pylint: disable=unused-import
from runbook_shell import environment

# The six the kubelet checks (pkg/kubelet/cm/container_manager_linux.go, setupKernelTunables).
KUBELET_SYSCTLS = ["vm/overcommit_memory", "vm/panic_on_oom", "kernel/panic", "kernel/panic_on_oops",
                   "kernel/keys/root_maxkeys", "kernel/keys/root_maxbytes"]
# FLUIDOPS_CLUSTER_INSTANCE picks another (a second make test beside this one's uses 1).
INSTANCE = int(os.environ.get("FLUIDOPS_CLUSTER_INSTANCE", "1"))
REAL = dict(os.environ, FLUIDOPS_NODES="real", FLUIDOPS_CLUSTER_INSTANCE=str(INSTANCE))
SUFFIX = "-%d" % INSTANCE if INSTANCE else ""  # of its state directory and kept logs, as instance.sh names them
CACHE = PARTS  # the local cluster's parts and state
RUN = os.path.join(PARTS, "run" + SUFFIX)
os.environ["FLUIDOPS_CLUSTER_INSTANCE"] = str(INSTANCE)
INVENTORY = os.path.join(REPO, "inventory", "local")
# An extra label for the GPU nodes, as a site would set it. A taint would keep the cluster's own
# pods (Fluid's controllers, DNS) off: here every node is a GPU node.
POOL = {"node_labels_extra": {"fluidops.io/pool": "training"}}
# The dataset's under-store: the stand-in of ImageNet cluster.sh up wrote, which the node hosts mount.
STANDIN = os.path.join(RUN, "standins", DATASET)


def host(node):
    """The podman container of a node host."""
    return cluster_script.host_of(node, INSTANCE)


def started_pid(component):
    """The pid cluster.sh keeps of a process it started (RUN/pids/COMPONENT)."""
    with open(os.path.join(RUN, "pids", component), encoding="ascii") as handle:
        return int(handle.read())


def cluster(*args):
    return cluster_script.cluster(*args, env=REAL)


def standin_files(split):
    """{name: bytes} of a split of the dataset's under-store."""
    folder = os.path.join(STANDIN, split)
    files = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as handle:
            files[name] = handle.read()
    return files


def standin_bytes():
    """The bytes of the dataset's under-store, every split."""
    return sum(len(data) for split in ("train", "validation") for data in standin_files(split).values())


def read_sysctls():
    values = {}
    for name in KUBELET_SYSCTLS:
        with open("/proc/sys/" + name, encoding="ascii") as handle:
            values[name] = handle.read().strip()
    return values


@pytest.fixture(scope="session")
def sysctls_before():
    return read_sysctls()


@pytest.fixture(scope="session")
def kubeconfig(sysctls_before):  # pylint: disable=unused-argument,redefined-outer-name  # read before the kubelets start
    # One left up by a killed run is taken down first.
    subprocess.run([CLUSTER, "down"], capture_output=True, check=False, env=REAL)
    cluster_script.up(env=REAL)
    yield cluster("kubeconfig").stdout.strip()
    subprocess.run([CLUSTER, "down"], capture_output=True, check=False, env=REAL)


@pytest.fixture(scope="session")
def api(kubeconfig):  # pylint: disable=redefined-outer-name
    return config.new_client_from_config(config_file=kubeconfig)


@pytest.fixture(scope="session")
def images(kubeconfig):  # pylint: disable=unused-argument,redefined-outer-name  # written by cluster.sh up
    """Each image's reference as cluster.sh pushed it: registry/fluidops/name:tag@sha256:digest."""
    folder = os.path.join(RUN, "images")
    refs = {}
    for name in os.listdir(folder):
        if not name.startswith("."):
            with open(os.path.join(folder, name), encoding="ascii") as handle:
                refs[name] = handle.read().strip()
    return refs


@pytest.fixture(scope="session")
def site_run(kubeconfig):  # pylint: disable=unused-argument,redefined-outer-name
    """site.yml whole with the local inventory, as make demo runs it, and the pool's label: the
    node hosts prepared, the nodes labelled, Fluid through Helm with its images from the local
    registry as from a site's mirror (fluidops_image_registry), its controllers and CSI plugin
    running; the dataset over the stand-in of ImageNet Bound with its AlluxioRuntime's pods running
    the Alluxio image, warmed whole by a DataLoad, and the training on it. The finished run."""
    done = run_playbook("site.yml", extra_vars=POOL)
    assert done.returncode == 0, done.output[-4000:]
    return done


@pytest.fixture(scope="session")
def fluid(kubeconfig, site_run):  # pylint: disable=unused-argument,redefined-outer-name
    """{file: md5} of the training split of the dataset site.yml made Bound."""
    assert kubectl(kubeconfig, "get", "dataset", DATASET, "-o", "jsonpath={.status.phase}").stdout == "Bound"
    return {name: hashlib.md5(data).hexdigest() for name, data in standin_files("train").items()}


@pytest.fixture(scope="session")
def shell(kubeconfig, tmp_path_factory):  # pylint: disable=redefined-outer-name
    """The runbooks' commands' environment (tests/runbook_shell.py), with the index's variables
    as this cluster has them (docs/runbooks/README.md)."""
    return environment(kubeconfig, tmp_path_factory.mktemp("tools"), INVENTORY=os.path.relpath(INVENTORY, REPO), NS="default",
                       DATASET=DATASET)
