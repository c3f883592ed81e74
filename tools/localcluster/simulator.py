#!/usr/bin/env python3
"""SIMULATED controllers for the local cluster, where a kwok Stage cannot express the logic.

kwok Stages (kwok.yaml) do what depends on one object alone: Dataset -> NotBound, runtimes ->
Ready, DataLoad Pending -> Executing, MPIJob Created -> Running -> Succeeded. This process does
what needs several objects or a counter, as Fluid's and mpi-operator's controllers would:

- Dataset NotBound -> Bound once the runtime of the same name is Ready, with cache states from
  the runtime's tiers, and the PV/PVC Fluid creates for a bound dataset;
- DataLoad Executing -> Complete while the dataset's cached bytes and percentage rise, or
  -> Failed with Fluid-style conditions when a target path is not in the simulated UFS;
- MPIJob -> launcher and worker pods (kwok runs them) and the launcher's log in the real
  tf_cnn_benchmarks format, served by kwok through a Logs object.

Nothing here runs Fluid, Alluxio or TensorFlow. It is a level-triggered loop: list, compare,
patch, once a second.
"""

import argparse
import logging
import os
import random
import sys
import time

from kubernetes import client, config
from kubernetes.client.rest import ApiException

# The project's own byte quantities, as the modules and filters use them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".collections"))
from ansible_collections.fluidops.accel.plugins.module_utils.quantity import format_bytes, parse_bytes  # noqa: E402

FLUID = ("data.fluid.io", "v1alpha1")
RUNTIMES = (("alluxioruntimes", "alluxio"), ("jindoruntimes", "jindo"))
GIB = 1024 ** 3
# The simulated under-file-system: ImageNet as ~130 MB TFRecords (seed 004), 143.67 GiB in all.
UFS_PATHS = {"/": 143.67 * GIB, "/train": 137.9 * GIB, "/validation": 5.77 * GIB}
# Seed 003's tables: images/sec (step 1000, last step) and Accuracy @ 5 (nfs, cold, warm).
SEED_THROUGHPUT = {
    1: {"nfs": (2400.8, 8696.8), "cold": (2378.4, 8692.8), "warm": (9327.6, 9301.6), "top5": (0.9282, 0.9286, 0.9285)},
    4: {"nfs": (3136.0, 15024.0), "cold": (8889.6, 20506.3), "warm": (20859.5, 21329.0), "top5": (0.9228, 0.9204, 0.9243)},
}
IMAGENET_IMAGES, EPOCHS = 1281167, 90
LOAD_SECONDS = 6  # a full warm-up takes this long in the simulation
LOG = logging.getLogger("simulator")


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def condition(kind, reason, message, status="True"):
    return {"type": kind, "status": status, "reason": reason, "message": message,
            "lastProbeTime": now(), "lastTransitionTime": now(), "lastUpdateTime": now()}


class Simulator:
    def __init__(self, api, log_dir):
        self.custom = client.CustomObjectsApi(api)
        self.core = client.CoreV1Api(api)
        self.log_dir = log_dir
        self.loads = {}  # DataLoad uid -> (start time, start cached bytes)

    # -- helpers ---------------------------------------------------------------------------
    def list(self, plural, group=FLUID):
        return self.custom.list_cluster_custom_object(group[0], group[1], plural)["items"]

    def patch_status(self, plural, obj, status, group=FLUID):
        meta = obj["metadata"]
        self.custom.patch_namespaced_custom_object_status(
            group[0], group[1], meta["namespace"], plural, meta["name"], {"status": status})

    def runtime_of(self, dataset):
        meta = dataset["metadata"]
        for plural, kind in RUNTIMES:
            try:
                runtime = self.custom.get_namespaced_custom_object(FLUID[0], FLUID[1], meta["namespace"], plural, meta["name"])
            except ApiException as error:
                if error.status == 404:
                    continue
                raise
            return kind, runtime
        return None, None

    # -- datasets ----------------------------------------------------------------------------
    def bind_datasets(self):
        for dataset in self.list("datasets"):
            if dataset.get("status", {}).get("phase") != "NotBound" or dataset["metadata"].get("deletionTimestamp"):
                continue
            kind, runtime = self.runtime_of(dataset)
            if not runtime or runtime.get("status", {}).get("masterPhase") != "Ready":
                continue
            levels = runtime["spec"].get("tieredstore", {}).get("levels", [])
            replicas = runtime["spec"].get("replicas", 1)
            capacity = sum(parse_bytes(level.get("quota", 0)) for level in levels) * replicas
            meta = dataset["metadata"]
            self.patch_status("datasets", dataset, {
                "phase": "Bound",
                "ufsTotal": format_bytes(UFS_PATHS["/"]),
                "fileNum": "1152",
                "cacheStates": {"cacheCapacity": format_bytes(capacity), "cached": "0.00B", "cachedPercentage": "0.0%",
                                "cacheHitRatio": "0.0%", "localHitRatio": "0.0%", "remoteHitRatio": "0.0%",
                                "cacheThroughputRatio": "0.0%", "localThroughputRatio": "0.0%", "remoteThroughputRatio": "0.0%"},
                "runtimes": [{"name": meta["name"], "namespace": meta["namespace"], "type": kind,
                              "category": "Accelerate", "masterReplicas": 1}],
                "conditions": [condition("Ready", "DatasetReady", "The ddc runtime is ready (simulated).")],
            })
            self.create_volume(dataset, kind)
            LOG.info("dataset %s/%s Bound (runtime %s ready)", meta["namespace"], meta["name"], kind)

    def create_volume(self, dataset, kind):
        meta = dataset["metadata"]
        owner = [{"apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "name": meta["name"], "uid": meta["uid"]}]
        pv_name = "%s-%s" % (meta["namespace"], meta["name"])
        access = dataset["spec"].get("accessModes") or ["ReadOnlyMany"]
        # Cluster-scoped: no owner reference to the namespaced Dataset; release_volumes() deletes it.
        pv = {"metadata": {"name": pv_name, "labels": {"fluid.io/s-%s-%s" % (meta["namespace"], meta["name"]): "true",
                                                       "fluid.io/dataset-id": "%s-%s" % (meta["namespace"], meta["name"])}},
              "spec": {"capacity": {"storage": "100Pi"}, "accessModes": access, "storageClassName": "fluid",
                       "persistentVolumeReclaimPolicy": "Retain",
                       "claimRef": {"namespace": meta["namespace"], "name": meta["name"]},
                       "csi": {"driver": "fuse.csi.fluid.io", "volumeHandle": pv_name,
                               "volumeAttributes": {"fluid_path": "/runtime-mnt/%s/%s/%s/%s-fuse" % (kind, meta["namespace"], meta["name"], kind),
                                                    "mount_type": "fuse.%s" % kind}}}}
        pvc = {"metadata": {"name": meta["name"], "namespace": meta["namespace"], "ownerReferences": owner,
                            "labels": {"fluid.io/dataset-id": "%s-%s" % (meta["namespace"], meta["name"])}},
               "spec": {"accessModes": access, "storageClassName": "fluid", "volumeName": pv_name,
                        "resources": {"requests": {"storage": "100Pi"}}}}
        for create, body in ((self.core.create_persistent_volume, pv),
                             (lambda b: self.core.create_namespaced_persistent_volume_claim(meta["namespace"], b), pvc)):
            try:
                create(body)
            except ApiException as error:
                if error.status != 409:
                    raise

    def release_volumes(self):
        """As Fluid does when a dataset goes: delete its PV (the PVC goes with the Dataset it is owned by)."""
        datasets = {(d["metadata"]["namespace"], d["metadata"]["name"]) for d in self.list("datasets")}
        for volume in self.core.list_persistent_volume(label_selector="fluid.io/dataset-id").items:
            claim = volume.spec.claim_ref
            if claim and (claim.namespace, claim.name) not in datasets and not volume.metadata.deletion_timestamp:
                self.core.delete_persistent_volume(volume.metadata.name)
                LOG.info("dataset %s/%s gone: PV %s deleted", claim.namespace, claim.name, volume.metadata.name)

    # -- dataloads -------------------------------------------------------------------------
    def run_dataloads(self):
        for load in self.list("dataloads"):
            uid, status = load["metadata"]["uid"], load.get("status", {})
            if status.get("phase") != "Executing":
                self.loads.pop(uid, None)
                continue
            spec = load["spec"]
            ref = spec["dataset"]
            try:
                dataset = self.custom.get_namespaced_custom_object(
                    FLUID[0], FLUID[1], ref.get("namespace") or load["metadata"]["namespace"], "datasets", ref["name"])
            except ApiException as error:
                if error.status != 404:
                    raise
                self.fail(load, "DataLoadJobFailed", "dataset %s not found" % ref["name"])
                continue
            bad = [t["path"] for t in spec.get("target", []) if self.ufs_size(t["path"]) is None]
            if bad:
                self.fail(load, "DataLoadJobFailed", "target path %s does not exist in the under file system" % ", ".join(bad))
                continue
            self.advance(load, dataset)

    @staticmethod
    def ufs_size(path):
        path = "/" + path.strip("/")
        for prefix, size in UFS_PATHS.items():
            if path == prefix:
                return size
        return None

    def advance(self, load, dataset):
        uid = load["metadata"]["uid"]
        states = dataset.get("status", {}).get("cacheStates", {})
        cached_start = parse_bytes(states.get("cached", "0B"))
        start, cached_start = self.loads.setdefault(uid, (time.time(), cached_start))
        targets = load["spec"].get("target") or [{"path": "/"}]
        wanted = min(UFS_PATHS["/"], sum(self.ufs_size(t["path"]) for t in targets))
        capacity = parse_bytes(states.get("cacheCapacity", "0B")) or UFS_PATHS["/"]
        goal = min(capacity, max(cached_start, wanted))
        fraction = min(1.0, (time.time() - start) / LOAD_SECONDS)
        cached = cached_start + (goal - cached_start) * fraction
        self.patch_status("datasets", dataset, {"cacheStates": {
            "cached": format_bytes(cached), "cachedPercentage": "%.1f%%" % (100.0 * cached / UFS_PATHS["/"])}})
        if fraction >= 1.0:
            seconds = int(time.time() - start)
            self.patch_status("dataloads", load, {
                "phase": "Complete", "duration": "%dm%ds" % divmod(seconds, 60) if seconds >= 60 else "%ds" % seconds,
                "conditions": [condition("Complete", "DataLoadJobComplete", "DataLoad job completed (simulated)")]})
            self.loads.pop(uid, None)
            LOG.info("dataload %s Complete: %s cached", load["metadata"]["name"], format_bytes(cached))

    def fail(self, load, reason, message):
        self.patch_status("dataloads", load, {
            "phase": "Failed", "duration": "0s", "conditions": [condition("Failed", reason, message)]})
        self.loads.pop(load["metadata"]["uid"], None)
        LOG.info("dataload %s Failed: %s", load["metadata"]["name"], message)

    # -- mpijobs ---------------------------------------------------------------------------
    def start_mpijobs(self):
        for job in self.list("mpijobs", group=("kubeflow.org", "v2beta1")):
            meta = job["metadata"]
            if meta.get("deletionTimestamp"):
                continue
            try:
                launcher = self.core.read_namespaced_pod(meta["name"] + "-launcher", meta["namespace"])
            except ApiException as error:
                if error.status != 404:
                    raise
                self.create_job_pods(job)
                continue
            succeeded = any(c["type"] == "Succeeded" and c["status"] == "True" for c in job.get("status", {}).get("conditions", []))
            if succeeded and launcher.status.phase == "Running":
                self.finish_launcher(launcher)
                self.clean_workers(job)

    def clean_workers(self, job):
        """mpi-operator's runPolicy.cleanPodPolicy (v2beta1 default None): Running or All deletes the
        workers once the job ends; the launcher stays either way."""
        policy = (job["spec"].get("runPolicy") or {}).get("cleanPodPolicy", "None")
        if policy not in ("Running", "All"):
            return
        meta = job["metadata"]
        selector = "training.kubeflow.org/job-name=%s,training.kubeflow.org/job-role=worker" % meta["name"]
        for pod in self.core.list_namespaced_pod(meta["namespace"], label_selector=selector).items:
            self.core.delete_namespaced_pod(pod.metadata.name, meta["namespace"], grace_period_seconds=0)
        LOG.info("mpijob %s: workers deleted (cleanPodPolicy %s)", meta["name"], policy)

    def finish_launcher(self, pod):
        """The launcher exits 0 and stays Completed, holding its volumes as a real one does (seed 003's trap)."""
        statuses = [{"name": c.name, "ready": False, "restartCount": 0, "image": c.image, "imageID": "",
                     "state": {"terminated": {"exitCode": 0, "reason": "Completed", "finishedAt": now(),
                                              "startedAt": pod.status.start_time.strftime("%Y-%m-%dT%H:%M:%SZ")}}}
                    for c in pod.spec.containers]
        self.core.patch_namespaced_pod_status(pod.metadata.name, pod.metadata.namespace, {"status": {
            "phase": "Succeeded", "containerStatuses": statuses,
            "conditions": [{"type": "Ready", "status": "False", "reason": "PodCompleted"}]}})
        LOG.info("launcher %s Completed", pod.metadata.name)

    def create_job_pods(self, job):
        meta, specs = job["metadata"], job["spec"]["mpiReplicaSpecs"]
        owner = [{"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "name": meta["name"], "uid": meta["uid"],
                  "controller": True, "blockOwnerDeletion": True}]
        workers = specs.get("Worker", {}).get("replicas", 0)
        pods = [("launcher", meta["name"] + "-launcher", specs["Launcher"]["template"])]
        pods += [("worker", "%s-worker-%d" % (meta["name"], i), specs["Worker"]["template"]) for i in range(workers)]
        for role, name, template in pods:
            labels = dict(template.get("metadata", {}).get("labels", {}),
                          **{"training.kubeflow.org/job-name": meta["name"], "training.kubeflow.org/job-role": role,
                             "training.kubeflow.org/operator-name": "mpi-operator"})
            body = {"metadata": {"name": name, "namespace": meta["namespace"], "labels": labels, "ownerReferences": owner},
                    "spec": dict(template["spec"], restartPolicy=template["spec"].get("restartPolicy", "Never"))}
            self.core.create_namespaced_pod(meta["namespace"], body)
        log_file = self.write_launcher_log(job, workers)
        container = specs["Launcher"]["template"]["spec"]["containers"][0]["name"]
        self.custom.create_namespaced_custom_object("kwok.x-k8s.io", "v1alpha1", meta["namespace"], "logs", {
            "apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "Logs",
            "metadata": {"name": meta["name"] + "-launcher", "namespace": meta["namespace"], "ownerReferences": owner},
            "spec": {"logs": [{"containers": [container], "logsFile": log_file, "follow": False}]}})
        # Only now may kwok's Stage start the job: a real launcher runs before the job can end.
        self.custom.patch_namespaced_custom_object("kubeflow.org", "v2beta1", meta["namespace"], "mpijobs", meta["name"],
                                                   {"metadata": {"annotations": {"fluidops.local/pods": "created"}}})
        LOG.info("mpijob %s: launcher and %d workers created; log %s", meta["name"], workers, log_file)

    def cache_fraction(self, job):
        """The cached fraction of the dataset the workers mount; None for a plain PVC (baseline)."""
        worker = job["spec"]["mpiReplicaSpecs"].get("Worker", {}).get("template", {}).get("spec", {})
        for volume in worker.get("volumes", []):
            claim = volume.get("persistentVolumeClaim", {}).get("claimName")
            if not claim:
                continue
            try:
                dataset = self.custom.get_namespaced_custom_object(
                    FLUID[0], FLUID[1], job["metadata"]["namespace"], "datasets", claim)
            except ApiException as error:
                if error.status == 404:
                    return None
                raise
            percentage = dataset.get("status", {}).get("cacheStates", {}).get("cachedPercentage", "0%")
            return float(percentage.rstrip("%")) / 100.0
        return None

    def write_launcher_log(self, job, workers):
        """tf_cnn_benchmarks output with --tag-output prefixes, SIMULATED: the running mean of
        images/sec follows the seeds' tables (seed 003: step 1000 and last step, 1x8 and 4x8;
        NFS baseline, Fluid cold, Fluid warm, by the cached fraction of the workers' dataset),
        scaled to the job's GPUs; 90 epochs of ImageNet at 256 images per GPU and step, printed
        every 100 steps by two ranks."""
        meta = job["metadata"]
        fraction = self.cache_fraction(job)
        gpus = max(1, workers) * int(job["spec"].get("slotsPerWorker", 8))
        table = SEED_THROUGHPUT[4 if workers >= 4 else 1]
        scale = gpus / (32.0 if workers >= 4 else 8.0)
        if fraction is None:
            at_1000, at_last = table["nfs"]
        else:
            at_1000, at_last = [cold + (warm - cold) * fraction for cold, warm in zip(table["cold"], table["warm"])]
        last_step = int(round(IMAGENET_IMAGES * EPOCHS / (256.0 * gpus)))
        rng = random.Random(meta["uid"])
        lines = ["[1,0]<stdout>:SIMULATED by the fluidops local cluster: no GPU and no TensorFlow ran.",
                 "[1,0]<stdout>:Model:       resnet50", "[1,0]<stdout>:Batch size:  %d global" % (256 * gpus),
                 "[1,0]<stdout>:Num batches: %d" % last_step, "[1,0]<stdout>:Data format: NCHW",
                 "[1,0]<stdout>:Step\tImg/sec\ttotal_loss"]
        for step in sorted(set(range(100, last_step + 1, 100)) | {last_step}):
            # A running mean: a slow start (cold cache, NFS) weighs less as the steps add up.
            if step >= 1000:
                mean = at_last + (at_1000 - at_last) * 1000.0 * (last_step - step) / (step * (last_step - 1000) or 1)
            else:
                mean = at_1000 * (0.8 + 0.2 * step / 1000.0)
            for rank in range(min(gpus, 2)):
                ips = mean * scale * rng.uniform(0.995, 1.005)
                lines.append("[1,%d]<stdout>:%d\timages/sec: %.1f +/- %.1f (jitter = %.1f)\t%.3f" % (
                    rank, step, ips, ips * 0.002, ips * 0.01, max(1.2, 8.0 - step * 6.8 / last_step)))
        total = at_last * scale * rng.uniform(0.999, 1.001)
        lines += ["[1,0]<stdout>:" + "-" * 40, "[1,0]<stdout>:total images/sec: %.2f" % total, "[1,0]<stdout>:" + "-" * 40,
                  "[1,0]<stdout>:Accuracy @ 1 = %.4f Accuracy @ 5 = %.4f [50000 examples]" % (
                      rng.uniform(0.745, 0.755), table["top5"][0 if fraction is None else (1 if fraction < 0.5 else 2)])]
        path = os.path.join(self.log_dir, "%s-%s-launcher.log" % (meta["namespace"], meta["name"]))
        # kwok serves files in the CRI log format a kubelet keeps: "<RFC 3339 time> stdout F <line>".
        started = time.time()
        with open(path, "w", encoding="utf-8") as handle:
            for index, line in enumerate(lines):
                moment = started + index * 0.01
                stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(moment)))
                handle.write("%s.%09dZ stdout F %s\n" % (stamp, int((moment % 1) * 1e9), line))
        return path

    def step(self):
        self.bind_datasets()
        self.release_volumes()
        self.run_dataloads()
        self.start_mpijobs()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--log-dir", required=True, help="where the simulated launcher logs are written")
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    os.makedirs(args.log_dir, exist_ok=True)
    simulator = Simulator(config.new_client_from_config(config_file=args.kubeconfig), args.log_dir)
    while True:
        try:
            simulator.step()
        except ApiException as error:
            LOG.warning("API error, retrying: %s %s", error.status, error.reason)
        except Exception:  # pylint: disable=broad-except
            # One object the simulator cannot handle must not stop the others: log it and go on.
            LOG.exception("simulator step failed; retrying")
        time.sleep(args.interval)


if __name__ == "__main__":
    main()
