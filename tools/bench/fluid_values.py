"""Fluid's own Helm values for the data-path bench's Alluxio: the real controller renders them.

Fluid does not run Alluxio from the bundle's settings directly: its AlluxioRuntime controller
turns each runtime into the values of its own runtime chart (pkg/ddc/alluxio/transform*.go:
defaults, the profile's properties and JVM options, short-circuit, tiers, FUSE arguments) and
keeps them in the ConfigMap `<name>-alluxio-values` before it installs the chart. For each tuning
profile the bench runs, this module has that controller do so:

- a local cluster of the bench's own (FLUIDOPS_CLUSTER_INSTANCE=INSTANCE, real nodes), with
  Fluid's chart installed by the bundle's engine phase (playbooks/engine.yml, inventory/local);
- per profile, the Dataset and AlluxioRuntime the bundle's datasets role would apply
  (module_utils/fluid/manifests.py build_dataset), the tier on the bench host's ramfs;
- the values read back, and the cluster taken down if this module started it.

One thing is set here that the bundle leaves to Fluid: the runtime's ports, Alluxio's defaults
(as a user sets them in the runtime's spec), instead of ports Fluid allocates from its
host-network range, so that the bench's variants share a master.
Values are kept per profile and input (WORK/fluid-values): a second bench run needs no cluster.
"""

import hashlib
import json
import os
import subprocess
import sys
import time

import yaml

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import build_dataset
from bench.report import REPO, pinned

CLUSTER = os.path.join(REPO, "tools", "localcluster", "cluster.sh")
# Not the default cluster (0) nor make test's (1): a user's cluster stays as it is.
INSTANCE = "2"
NAMESPACE = "default"
# Alluxio 2.9's own defaults (Fluid's generateStaticPorts, for runtimes off the host network).
PORTS = {"master": {"rpc": 19998, "web": 19999}, "worker": {"rpc": 29999, "web": 30000},
         "jobMaster": {"rpc": 20001, "web": 20002}, "jobWorker": {"rpc": 30001, "web": 30003, "data": 30002}}
WAIT_SECONDS = 600


def log(message):
    print("[bench-datapath] %s" % message, file=sys.stderr, flush=True)


def _run(command, env, stdin=None):
    done = subprocess.run(command, env=env, input=stdin, capture_output=True, text=True, check=False)
    if done.returncode:
        output = (done.stderr or done.stdout).strip()[-2000:]
        raise SystemExit("bench-datapath: %s failed (exit %d): %s" % (" ".join(command[:3]), done.returncode, output))
    return done.stdout


def _settings():
    with open(os.path.join(REPO, "roles", "fluidops", "defaults", "main", "tuning_profiles.yml"), encoding="utf-8") as handle:
        profiles = yaml.safe_load(handle)["fluidops_builtin_tuning_profiles"]
    with open(os.path.join(REPO, "roles", "fluidops", "defaults", "main", "settings.yml"), encoding="utf-8") as handle:
        settings = yaml.safe_load(handle)
    return profiles, settings


def runtime_objects(profile, tier, mount_options):
    """The Dataset and AlluxioRuntime of ``bench-<profile>``, as the datasets role builds them."""
    profiles, settings = _settings()
    if profile not in profiles:
        raise SystemExit("bench-datapath: %s is not a built-in tuning profile (roles/fluidops/defaults/main/tuning_profiles.yml): %s"
                         % (profile, ", ".join(sorted(profiles))))
    item = {"name": "bench-" + profile, "mounts": [{"mount_point": "s3://bench/", "name": "bench", "options": dict(mount_options)}],
            "runtime": {"type": "alluxio", "replicas": 1, "profile": profile, "tiers": [dict(tier)]}}
    context = {"profiles": profiles, "gpu_node_count": 4, "accelerator_key": settings["fluidops_accelerator_key"],
               "accelerator": settings["fluidops_accelerator"], "namespace": NAMESPACE, "tolerations": [], "thin_profiles": []}
    dataset, runtime = build_dataset(item, 0, context)["manifests"]
    for part, ports in PORTS.items():
        runtime["spec"].setdefault(part, {})["ports"] = dict(ports)
    return [dataset, runtime]


class Cluster:
    """The bench's own local cluster, with Fluid's chart installed as the bundle installs it."""

    def __init__(self, cache):
        venv = open(os.path.join(cache, ".venv-path"), encoding="utf-8").read().strip()
        self.env = dict(os.environ, FLUIDOPS_CLUSTER_INSTANCE=INSTANCE, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"),
                        PATH=os.path.join(venv, "bin") + os.pathsep + os.environ["PATH"])
        self.kubectl_binary = os.path.join(cache, "localcluster", "kubectl")
        self.started = False

    def __enter__(self):
        status = subprocess.run([CLUSTER, "status"], env=self.env, capture_output=True, text=True, check=False)
        self.started = "apiserver: running" not in status.stdout
        log("starting a local cluster of the bench's own (instance %s) for Fluid's controller" % INSTANCE)
        _run([CLUSTER, "up"], self.env)
        self.kubeconfig = _run([CLUSTER, "kubeconfig"], self.env).strip()
        log("installing Fluid's chart with the bundle's engine phase")
        _run(["ansible-playbook", os.path.join(REPO, "playbooks", "engine.yml"), "-i", os.path.join(REPO, "inventory", "local")],
             self.env)
        return self

    def __exit__(self, *exc):
        if self.started:
            log("taking the bench's cluster down")
            subprocess.run([CLUSTER, "down"], env=self.env, capture_output=True, check=False)

    def kubectl(self, *args, stdin=None):
        return _run([self.kubectl_binary, "--kubeconfig", self.kubeconfig, *args], self.env, stdin)

    def values_of(self, name):
        """Fluid's values for runtime ``name``, once its controller has written them."""
        began = time.monotonic()
        while True:
            found = json.loads(self.kubectl("get", "configmap", "-n", NAMESPACE, "-o", "json",
                                            "--field-selector", "metadata.name=%s-alluxio-values" % name))
            if found.get("items"):
                return found["items"][0]["data"]["data"]
            waited = time.monotonic() - began
            if waited > WAIT_SECONDS:
                status = self.kubectl("get", "alluxioruntime", name, "-n", NAMESPACE, "-o", "jsonpath={.status}")
                raise SystemExit("bench-datapath: Fluid wrote no values for %s in %d s; the runtime's status: %s"
                                 % (name, WAIT_SECONDS, status or "(none)"))
            if int(waited) % 15 == 0:
                log("  waiting for Fluid's values of %s (%d s)" % (name, waited))
            time.sleep(1)


def values_path(profile, tier, mount_options, work):
    """Where Fluid's values of that runtime are kept: named by its objects and Fluid's version."""
    manifests = runtime_objects(profile, tier, mount_options)
    key = hashlib.sha256(json.dumps([pinned("FLUID_VERSION"), manifests], sort_keys=True).encode()).hexdigest()[:12]
    return os.path.join(work, "fluid-values", "%s-%s.yaml" % (profile, key))


def fluid_values(profiles, tier, mount_options, cache, work):
    """{profile: path of Fluid's values file}, kept or from a cluster started for them."""
    paths = {profile: values_path(profile, tier, mount_options, work) for profile in profiles}
    missing = [profile for profile in profiles if not os.path.exists(paths[profile])]
    if not missing:
        log("Fluid's values of %s: kept from an earlier run (%s)" % (", ".join(profiles), os.path.join(work, "fluid-values")))
        return paths
    os.makedirs(os.path.join(work, "fluid-values"), exist_ok=True)
    with Cluster(cache) as cluster:
        objects = [o for profile in missing for o in runtime_objects(profile, tier, mount_options)]
        cluster.kubectl("apply", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
        for profile in missing:
            text = cluster.values_of("bench-" + profile)
            with open(paths[profile] + ".part", "w", encoding="utf-8") as handle:
                handle.write(text)
            os.replace(paths[profile] + ".part", paths[profile])
            log("Fluid's values of bench-%s: %s" % (profile, paths[profile]))
    return paths
