"""SIMULATED programs of the local cluster: what would run inside pods that kwok only pretends
to run, and JindoRuntime. Every pod of the four node hosts' real nodes runs for real; this process
plays the pods of kwok's nodes (the simulated cluster's four, FLUIDOPS_NODES=kwok, and those beyond
the hosts, cluster.sh nodes COUNT), where no container runs:

- the training program (the MPIJob launcher pod's mpirun of tf_cnn_benchmarks under Horovod):
  once the MPIJob is Running (all workers up, as mpirun needs) it writes the launcher's stdout
  as the real program prints it (rules in plugins/module_utils/tf_cnn_log.py: one process per
  GPU, each rank's step lines from its local batch, job-wide totals, with --tag-output when the
  launcher's command asks for it) and exits after the run's time compressed 1000 times;
- JindoRuntime (Jindo's engine is closed source): its Dataset binds once kwok's Stage made the
  runtime Ready, with the PV/PVC Fluid would make.

Nothing plays Alluxio's pods there: a Fluid runtime on kwok's nodes never mounts its under-store,
so its dataset stays NotBound, and a DataLoad's loader pod stays Running.

A program "exits" by putting its exit code on its pod (annotation fluidops.local/exit-code);
kwok's simulated-program-exit Stage then ends the pod as a kubelet would. Level-triggered:
list, compare, act, once a second.
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
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", ".collections"))
from ansible_collections.fluidops.accel.plugins.module_utils.quantity import format_bytes, parse_bytes  # noqa: E402

FLUID = ("data.fluid.io", "v1alpha1")
MPI = ("kubeflow.org", "v2beta1")
KWOK = ("kwok.x-k8s.io", "v1alpha1")
EXIT = "fluidops.local/exit-code"
GIB = 1024 ** 3
IMAGENET_BYTES = 143.67 * GIB  # ImageNet as TFRecords, what a simulated JindoRuntime reports
# Seed 003's tables: job-wide images/sec (step 1000, last step) and Accuracy @ 5 (nfs, cold, warm).
SEED_THROUGHPUT = {
    1: {"nfs": (2400.8, 8696.8), "cold": (2378.4, 8692.8), "warm": (9327.6, 9301.6), "top5": (0.9282, 0.9286, 0.9285)},
    4: {"nfs": (3136.0, 15024.0), "cold": (8889.6, 20506.3), "warm": (20859.5, 21329.0), "top5": (0.9228, 0.9204, 0.9243)},
}
IMAGENET_IMAGES, EPOCHS, BATCH_PER_GPU, DISPLAY_EVERY = 1281167, 90, 256, 100
TIME_COMPRESSION = 1000.0  # simulated training seconds per wall-clock second
LOG = logging.getLogger("simulator")


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def owned_by(obj, kind):
    return any(ref.kind == kind for ref in obj.metadata.owner_references or [])


class Simulator:
    def __init__(self, api, state_dir):
        self.custom = client.CustomObjectsApi(api)
        self.core = client.CoreV1Api(api)
        self.state_dir = state_dir
        self.logs_dir = os.path.join(state_dir, "logs")
        os.makedirs(self.logs_dir, exist_ok=True)
        self.programs = {}  # pod uid -> what the simulated program needs between steps

    # -- helpers ---------------------------------------------------------------------------
    def simulated_pods(self, selector):
        """The pods of SELECTOR on kwok's nodes: those whose programs only this process runs. A
        pod of a real node (cluster.sh with FLUIDOPS_NODES=real) runs its own."""
        kwok_nodes = {node.metadata.name for node in self.core.list_node().items
                      if (node.metadata.annotations or {}).get("kwok.x-k8s.io/node") == "fake"}
        return [pod for pod in self.core.list_pod_for_all_namespaces(label_selector=selector).items
                if pod.spec.node_name in kwok_nodes]

    def get(self, group, namespace, plural, name):
        try:
            return self.custom.get_namespaced_custom_object(group[0], group[1], namespace, plural, name)
        except ApiException as error:
            if error.status == 404:
                return None
            raise

    def create_ignoring_conflict(self, create, *args):
        try:
            create(*args)
        except ApiException as error:
            if error.status != 409:
                raise

    def serve_for_pod(self, pod, plural, kind, spec):
        """kwok's ``kind`` object for the pod (a Logs), named after it and owned by it; True when
        made. One an earlier pod of the same name left (a pod made again under its name) is
        replaced: the garbage collector removes it in its own time, and the new pod would be left
        without one (seen at 64 nodes with the Exec objects of the masters that were once played).
        Sources: kwok finds a pod's Logs by the pod's namespace and name (kwok.sigs.k8s.io, "Logs"
        configuration); the garbage collector deletes a dependent whose owner's uid is gone
        (kubernetes.io, "Owners and Dependents"), whenever its queue reaches it."""
        namespace, name = pod.metadata.namespace, pod.metadata.name
        found = self.get(KWOK, namespace, plural, name)
        if found and [ref.get("uid") for ref in found["metadata"].get("ownerReferences", [])] == [pod.metadata.uid]:
            return False
        if found:
            try:
                self.custom.delete_namespaced_custom_object(*KWOK, namespace, plural, name)
            except ApiException as error:
                if error.status != 404:
                    raise
        owner = [{"apiVersion": "v1", "kind": "Pod", "name": name, "uid": pod.metadata.uid}]
        self.create_ignoring_conflict(self.custom.create_namespaced_custom_object, *KWOK, namespace, plural, {
            "apiVersion": "/".join(KWOK), "kind": kind, "metadata": {"name": name, "namespace": namespace, "ownerReferences": owner},
            "spec": spec})
        return True

    def exit_program(self, pod, code):
        self.core.patch_namespaced_pod(pod.metadata.name, pod.metadata.namespace,
                                       {"metadata": {"annotations": {EXIT: str(code)}}})
        self.programs.pop(pod.metadata.uid, None)

    def serve_log(self, pod, lines):
        """The container's stdout, served by kwok through a Logs object, in the CRI log format
        a kubelet keeps ("<RFC 3339 time> stdout F <line>")."""
        path = os.path.join(self.logs_dir, "%s-%s.log" % (pod.metadata.namespace, pod.metadata.name))
        started = time.time()
        with open(path, "w", encoding="utf-8") as handle:
            for index, line in enumerate(lines):
                moment = started + index * 0.001
                stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(moment)))
                handle.write("%s.%09dZ stdout F %s\n" % (stamp, int((moment % 1) * 1e9), line))
        self.serve_for_pod(pod, "logs", "Logs",
                           {"logs": [{"containers": [c.name for c in pod.spec.containers], "logsFile": path, "follow": False}]})

    # -- the training program ----------------------------------------------------------------
    def run_launchers(self):
        pods = self.simulated_pods("training.kubeflow.org/job-role=launcher")
        for pod in pods:
            if pod.status.phase != "Running" or pod.metadata.deletion_timestamp or EXIT in (pod.metadata.annotations or {}):
                continue
            name = pod.metadata.labels.get("training.kubeflow.org/job-name")
            job = self.get(MPI, pod.metadata.namespace, "mpijobs", name)
            if not job:
                continue
            running = any(c["type"] == "Running" and c["status"] == "True" for c in (job.get("status") or {}).get("conditions", []))
            program = self.programs.get(pod.metadata.uid)
            if program is None:
                if not running:  # mpirun waits for every worker
                    continue
                lines, seconds = launcher_output(job, self.cache_fraction(job), pod)
                self.serve_log(pod, lines)
                self.programs[pod.metadata.uid] = {"end": time.time() + seconds / TIME_COMPRESSION}
                LOG.info("launcher %s/%s: training (simulated %.0f s)", pod.metadata.namespace, pod.metadata.name, seconds)
            elif time.time() >= program["end"]:
                self.exit_program(pod, 0)
                LOG.info("launcher %s/%s: exit 0", pod.metadata.namespace, pod.metadata.name)

    def cache_fraction(self, job):
        """The cached fraction of the dataset the workers mount; None for a plain PVC (baseline)."""
        worker = job["spec"]["mpiReplicaSpecs"].get("Worker", {}).get("template", {}).get("spec", {})
        for volume in worker.get("volumes", []):
            claim = volume.get("persistentVolumeClaim", {}).get("claimName")
            if claim:
                dataset = self.get(FLUID, job["metadata"]["namespace"], "datasets", claim)
                if dataset is None:
                    return None
                percentage = (dataset.get("status") or {}).get("cacheStates", {}).get("cachedPercentage", "0%")
                try:
                    return float(percentage.rstrip("%")) / 100.0
                except ValueError:  # "[Calculating]" or "NaN%" before the first metadata sync
                    return 0.0
        return None

    # -- JindoRuntime (closed source) ----------------------------------------------------------
    def bind_jindo_datasets(self):
        for runtime in self.custom.list_cluster_custom_object(FLUID[0], FLUID[1], "jindoruntimes")["items"]:
            meta = runtime["metadata"]
            dataset = self.get(FLUID, meta["namespace"], "datasets", meta["name"])
            if not dataset or (dataset.get("status") or {}).get("phase") != "NotBound":
                continue
            if (runtime.get("status") or {}).get("masterPhase") != "Ready" or dataset["metadata"].get("deletionTimestamp"):
                continue
            levels = runtime["spec"].get("tieredstore", {}).get("levels", [])
            capacity = sum(parse_bytes(level.get("quota", 0)) for level in levels) * runtime["spec"].get("replicas", 1)
            self.custom.patch_namespaced_custom_object_status(FLUID[0], FLUID[1], meta["namespace"], "datasets", meta["name"], {
                "status": {"phase": "Bound", "ufsTotal": format_bytes(IMAGENET_BYTES), "fileNum": "1152",
                           "cacheStates": {"cacheCapacity": format_bytes(capacity), "cached": "0.00B", "cachedPercentage": "0.0%"},
                           "runtimes": [{"name": meta["name"], "namespace": meta["namespace"], "type": "jindo",
                                         "category": "Accelerate", "masterReplicas": 1}],
                           "conditions": [{"type": "Ready", "status": "True", "reason": "DatasetReady",
                                           "message": "The ddc runtime is ready (simulated JindoRuntime).",
                                           "lastUpdateTime": now(), "lastTransitionTime": now()}]}})
            self.create_jindo_volume(dataset)
            LOG.info("dataset %s/%s Bound (simulated JindoRuntime)", meta["namespace"], meta["name"])

    def create_jindo_volume(self, dataset):
        meta = dataset["metadata"]
        pv_name = "%s-%s" % (meta["namespace"], meta["name"])
        access = dataset["spec"].get("accessModes") or ["ReadOnlyMany"]
        labels = {"fluid.io/dataset-id": pv_name, "fluidops.local/simulated-jindo": "true"}
        pv = {"metadata": {"name": pv_name, "labels": labels},
              "spec": {"capacity": {"storage": "100Pi"}, "accessModes": access, "storageClassName": "fluid",
                       "persistentVolumeReclaimPolicy": "Retain", "claimRef": {"namespace": meta["namespace"], "name": meta["name"]},
                       "csi": {"driver": "fuse.csi.fluid.io", "volumeHandle": pv_name,
                               "volumeAttributes": {"fluid_path": "/runtime-mnt/jindo/%s/%s/jindofs-fuse" % (meta["namespace"], meta["name"]),
                                                    "mount_type": "fuse.jindofs-fuse"}}}}
        owner = [{"apiVersion": "data.fluid.io/v1alpha1", "kind": "Dataset", "name": meta["name"], "uid": meta["uid"]}]
        pvc = {"metadata": {"name": meta["name"], "namespace": meta["namespace"], "labels": labels, "ownerReferences": owner},
               "spec": {"accessModes": access, "storageClassName": "fluid", "volumeName": pv_name,
                        "resources": {"requests": {"storage": "100Pi"}}}}
        self.create_ignoring_conflict(self.core.create_persistent_volume, pv)
        self.create_ignoring_conflict(self.core.create_namespaced_persistent_volume_claim, meta["namespace"], pvc)

    def release_jindo_volumes(self):
        for volume in self.core.list_persistent_volume(label_selector="fluidops.local/simulated-jindo=true").items:
            claim = volume.spec.claim_ref
            if claim and not self.get(FLUID, claim.namespace, "datasets", claim.name) and not volume.metadata.deletion_timestamp:
                self.core.delete_persistent_volume(volume.metadata.name)

    def step(self):
        self.run_launchers()
        self.bind_jindo_datasets()
        self.release_jindo_volumes()


def launcher_output(job, fraction, pod):
    """(stdout lines, training seconds) of mpirun running tf_cnn_benchmarks under Horovod: one
    process per GPU, every rank printing its header, its own step lines (its local batch's rate)
    at step 1 and every DISPLAY_EVERY steps, and its job-wide total; the job-wide rates follow
    seed 003's tables (NFS baseline, Fluid cold, Fluid warm by the cached fraction; 1x8 or 4x8),
    scaled to the job's GPUs."""
    meta, spec = job["metadata"], job["spec"]
    workers = int(spec["mpiReplicaSpecs"].get("Worker", {}).get("replicas", 1))
    ranks = max(1, workers) * int(spec.get("slotsPerWorker", 8))
    table = SEED_THROUGHPUT[4 if workers >= 4 else 1]
    scale = ranks / (32.0 if workers >= 4 else 8.0)
    if fraction is None:
        at_1000, at_last = table["nfs"]
    else:
        at_1000, at_last = [cold + (warm - cold) * fraction for cold, warm in zip(table["cold"], table["warm"])]
    at_1000, at_last = at_1000 * scale, at_last * scale
    global_batch = BATCH_PER_GPU * ranks
    num_batches = (EPOCHS * IMAGENET_IMAGES + global_batch - 1) // global_batch
    command = " ".join(c for container in pod.spec.containers for c in (container.command or []) + (container.args or []))
    tagged = "--tag-output" in command
    rng = random.Random(meta["uid"])
    rank_bias = [rng.uniform(0.985, 1.015) for _rank in range(ranks)]

    def job_rate(step):
        """The job-wide running mean at a step: a slow start weighs less as the steps add up."""
        if step >= 1000:
            return at_last + (at_1000 - at_last) * 1000.0 * (num_batches - step) / (step * (num_batches - 1000) or 1)
        return at_1000 * (0.8 + 0.2 * step / 1000.0)

    per_rank = {r: [] for r in range(ranks)}
    devices = "[" + ", ".join("'horovod/gpu:%d'" % i for i in range(ranks)) + "]"
    for rank in range(ranks):
        per_rank[rank] += ["TensorFlow:  1.14",
                           "Model:       resnet50", "Dataset:     imagenet", "Mode:        training", "SingleSess:  False",
                           "Batch size:  %d global" % global_batch, "             %d per device" % BATCH_PER_GPU,
                           "Num batches: %d" % num_batches, "Num epochs:  %.2f" % (num_batches * global_batch / float(IMAGENET_IMAGES)),
                           "Devices:     " + devices, "NUMA bind:   False", "Data format: NCHW", "Optimizer:   sgd",
                           "Variables:   horovod", "==========", "Generating training model", "Initializing graph",
                           "Running warm up", "Done warm up", "Step\tImg/sec\ttotal_loss"]
    steps = [1] + list(range(DISPLAY_EVERY, num_batches + 1, DISPLAY_EVERY))
    for step in steps:
        mean = job_rate(step) / ranks
        for rank in range(ranks):
            ips = mean * rank_bias[rank] * rng.uniform(0.998, 1.002)
            loss = max(1.2, 8.0 - step * 6.8 / num_batches) + rng.uniform(-0.02, 0.02)
            per_rank[rank].append("%i\timages/sec: %.1f +/- %.1f (jitter = %.1f)\t%.3f" % (
                step, ips, 0.0 if step == 1 else ips * 0.002, 0.0 if step == 1 else ips * 0.01, loss))
    total = job_rate(num_batches) * 0.995  # the loop's wall time also counts what happens between steps
    for rank in range(ranks):
        per_rank[rank] += ["-" * 64, "total images/sec: %.2f" % (total * rng.uniform(0.998, 1.002)), "-" * 64]
    # The launch script's evaluation run (--eval): its own header, per-rank accuracy.
    top5 = table["top5"][0 if fraction is None else (1 if fraction < 0.5 else 2)]
    for rank in range(ranks):
        per_rank[rank] += ["Mode:        evaluation", "Accuracy @ 1 = %.4f Accuracy @ 5 = %.4f [%d examples]" % (
            rng.uniform(0.745, 0.755), top5 + rng.uniform(-0.0004, 0.0004), (50000 + ranks - 1) // ranks)]
    banner = ["SIMULATED by the fluidops local cluster: no GPU and no TensorFlow ran."]  # the launch script's echo
    return banner + interleave(per_rank, tagged, rng), num_batches * global_batch / total


def interleave(per_rank, tagged, rng):
    """The ranks' lines as mpirun writes them: in arrival order (a random rank next), each tagged
    `[1,<rank>]<stdout>:` with --tag-output; now and then a line is split across two chunks, and
    another rank's chunk lands between the halves (OpenMPI 4's iof_base_output.c adds no newline)."""
    queues = {rank: list(lines) for rank, lines in per_rank.items()}
    out, split = [], None  # split: (rank, the first half on the current physical line, the second half)
    while queues:
        # A rank's own bytes keep their order: after a split, another rank's chunk comes next.
        choices = [r for r in queues if split is None or r != split[0]] or list(queues)
        rank = rng.choice(choices)
        line = queues[rank].pop(0)
        if not queues[rank]:
            del queues[rank]
        prefix = "[1,%d]<stdout>:" % rank if tagged else ""
        if split is None and tagged and "images/sec" in line and rng.random() < 0.01 and len(queues) > 1:
            cut = rng.randint(4, len(line) - 2)
            split = (rank, prefix + line[:cut], "[1,%d]<stdout>:%s" % (rank, line[cut:]))
            continue
        if split is not None:
            out += [split[1] + prefix + line, split[2]]
            split = None
        else:
            out.append(prefix + line)
    if split is not None:
        out += [split[1], split[2]]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--state-dir", required=True, help="where the simulated programs keep their state and logs")
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    os.makedirs(args.state_dir, exist_ok=True)
    simulator = Simulator(config.new_client_from_config(config_file=args.kubeconfig), args.state_dir)
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
