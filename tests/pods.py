"""The pods the real nodes' tests (tests/nodes, tests/upgrade) make and read, with the local cluster's kubectl."""

import contextlib
import json
import os
import subprocess

import yaml

from cluster_script import wait_until
from playbook import PARTS

KUBECTL = os.path.join(PARTS, "kubectl")
# The local inventory's dataset (inventory/local), over the stand-in of ImageNet cluster.sh wrote.
DATASET = "imagenet"
BASELINE = "imagenet-baseline"  # inventory/local's ThinRuntime over the same bucket, with no cache
# A pod's reading of the training split through the claim, mounted at /data: md5sum's lines.
READ = "cd /data/%s/train && md5sum *" % DATASET


def kubectl(kubeconfig, *args, stdin=None, check=True):
    done = subprocess.run([KUBECTL, "--kubeconfig", kubeconfig, *args], input=stdin, capture_output=True,
                          text=True, check=False)
    assert not check or done.returncode == 0, "kubectl %s: %s%s" % (" ".join(args), done.stdout[-2000:], done.stderr)
    return done


def apply(kubeconfig, *objects):
    kubectl(kubeconfig, "apply", "-f", "-", stdin=yaml.safe_dump_all(objects))


def pod(name, image, command, node=None, volumes=(), limits=None, propagation="None"):
    # A shell as PID 1 ignores SIGTERM: without a short grace period each deletion waits 30 s.
    spec = {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
            "containers": [{"name": "main", "image": image, "command": ["sh", "-c", command],
                            "volumeMounts": [{"name": volume, "mountPath": "/" + volume, "mountPropagation": propagation}
                                             for volume, _claim in volumes],
                            "resources": {"limits": limits or {}}}],
            "volumes": [{"name": volume, "persistentVolumeClaim": {"claimName": claim}} for volume, claim in volumes]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def ended(kubeconfig, kind, name, phases, seconds):
    """The object's status.phase once it is one of PHASES, read once per look."""
    def phase():
        value = kubectl(kubeconfig, "get", kind, name, "-o", "jsonpath={.status.phase}").stdout
        return value if value in phases else None
    return wait_until(phase, seconds, every=1, what="%s %s ending" % (kind, name))


def pods(kubeconfig, *selection):
    """The pods kubectl get pods SELECTION lists, as objects."""
    return json.loads(kubectl(kubeconfig, "get", "pods", *selection, "-o", "json").stdout)["items"]


def registry_of(images):
    """The local registry's address, where the images built here are pushed."""
    return next(iter(images.values())).split("/", 1)[0]


def read_sums(log):
    """{file: md5} of md5sum's lines."""
    return dict(reversed(line.split()) for line in log.splitlines() if line.strip())


def finished(kubeconfig, name, seconds=300):
    """The pod's log once it has ended; its phase must be Succeeded."""
    phase = ended(kubeconfig, "pod", name, ("Succeeded", "Failed"), seconds)
    log = kubectl(kubeconfig, "logs", name).stdout
    assert phase == "Succeeded", "pod %s %s:\n%s\n%s" % (name, phase, log, kubectl(kubeconfig, "describe", "pod", name).stdout[-3000:])
    return log


@contextlib.contextmanager
def running_pod(kubeconfig, manifest):
    """The pod applied; deleted afterwards, the test passed or not, so that it holds no claim for
    the tests after it."""
    apply(kubeconfig, manifest)
    try:
        yield
    finally:
        kubectl(kubeconfig, "delete", "pod", manifest["metadata"]["name"], "--wait=true", "--ignore-not-found", check=False)


def events(kubeconfig, kind, name):
    return kubectl(kubeconfig, "get", "events", "--field-selector", "involvedObject.kind=%s,involvedObject.name=%s" % (kind, name),
                   "-o", "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}").stdout


def fuse_pods(kubeconfig):
    """{node: FUSE pod} of the dataset."""
    items = pods(kubeconfig, "-l", "release=%s,role=alluxio-fuse" % DATASET)
    return {item["spec"].get("nodeName"): item for item in items}


def node_without_fuse(kubeconfig, nodes):
    """One of NODES with no FUSE pod of the dataset. When every node has one (Fluid's default clean
    policy, OnRuntimeDeleted, keeps a FUSE pod once started), a node where no pod uses the claim is
    freed as Fluid's CSI plugin frees one under OnDemand (NodeUnstageVolume in
    pkg/csi/plugins/nodeserver.go): the FUSE DaemonSet's node label taken off, its pod gone."""
    on_nodes = fuse_pods(kubeconfig)
    free = [node for node in nodes if node not in on_nodes]
    if free:
        return free[0]
    claim_users = {item["spec"].get("nodeName") for item in pods(kubeconfig)
                   if item["status"].get("phase") not in ("Succeeded", "Failed")
                   and any(volume.get("persistentVolumeClaim", {}).get("claimName") == DATASET
                           for volume in item["spec"].get("volumes", []))}
    node = next(node for node in nodes if node not in claim_users)
    selector = json.loads(kubectl(kubeconfig, "get", "daemonset", DATASET + "-fuse", "-o", "jsonpath={.spec.template.spec.nodeSelector}").stdout)
    [label] = [key for key in selector if key.startswith("fluid.io/f-")]
    kubectl(kubeconfig, "label", "node", node, label + "-")
    wait_until(lambda: node not in fuse_pods(kubeconfig), 300, every=1, what="the FUSE pod leaving %s" % node)
    return node
