"""SIMULATED: JindoRuntime, whose engine is closed source and whose controller is not run here.
kwok's Stage (kwok.yaml) makes a JindoRuntime's master, workers and FUSE Ready with the spec's
counts; this process then binds its Dataset, with the capacity of its tiers and ImageNet's size,
and makes the PV and PVC Fluid's controller would make (Fluid v1.0.8 pkg/utils/dataset/volume/create.go:
a `fuse.csi.fluid.io` volume whose fluid_path is the runtime's FUSE mount). It releases the PV once
the Dataset is gone. Everything else on the local cluster is real: pods run on the four node
hosts' real nodes; on kwok's simulated nodes no container runs, and nothing here plays one.
Level-triggered: list, compare, act, once a second.
"""

import argparse
import logging
import sys
import time

from kubernetes import client, config
from kubernetes.client.rest import ApiException

# The project's own byte quantities, as the modules and filters use them.
from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import format_bytes, parse_bytes

FLUID = ("data.fluid.io", "v1alpha1")
GIB = 1024 ** 3
IMAGENET_BYTES = 143.67 * GIB  # ImageNet as TFRecords, what a simulated JindoRuntime reports
LOG = logging.getLogger("simulator")


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Simulator:
    def __init__(self, api):
        self.custom = client.CustomObjectsApi(api)
        self.core = client.CoreV1Api(api)

    # -- helpers ---------------------------------------------------------------------------
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
        self.bind_jindo_datasets()
        self.release_jindo_volumes()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--interval", type=float, default=1.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    simulator = Simulator(config.new_client_from_config(config_file=args.kubeconfig))
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
