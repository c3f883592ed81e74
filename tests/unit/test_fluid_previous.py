"""tests/fluid_previous.py: Fluid's previous release's chart, rendered by the local cluster's helm
with values(registry), takes every image from the registry; the images the local cluster runs of
it are those images.sh pushes there; each of inventory/local's fluid_values is taken or said not to
be. Needs tools/localcluster/build.sh fluid-previous (make unit runs it first)."""

import json
import os
import subprocess

import pytest
import yaml

import fluid_previous
from playbook import PARTS
from run import REPO

REGISTRY = "10.88.0.1:5000"
HELM = os.path.join(PARTS, "helm")
IMAGES_SH = os.path.join(REPO, "tools", "localcluster", "images.sh")
RUNTIMES = ("alluxio", "jindo", "goosefs", "juicefs", "thin", "efc", "vineyard")
# What roles/fluid sets itself with inventory/local (crdUpgrade off, fluid_webhook_enabled false,
# fluid_runtimes alluxio and thin, fluid_fuse_recovery true), before the inventory's fluid_values.
LOCAL_ROLE = {"crdUpgrade": {"enabled": False}, "webhook": {"enabled": False},
              "csi": {"kubelet": {"rootDir": "/var/lib/kubelet"}, "featureGates": "FuseRecovery=true"},
              "runtime": {"mountRoot": "/runtime-mnt", "alluxio": {"enabled": True}, "thin": {"enabled": True}}}
EVERYTHING = {"crdUpgrade": {"enabled": True}, "webhook": {"enabled": True}, "fluidapp": {"enabled": True},
              "runtime": {name: {"enabled": True} for name in RUNTIMES}}


@pytest.fixture(name="archive", scope="module")
def the_archive():
    path = fluid_previous.archive()
    assert os.path.isfile(path) and os.access(HELM, os.X_OK), "%s or %s is missing: run tools/localcluster/build.sh fluid-previous" % (
        path, HELM)
    return path


def rendered(archive_path, tmp_path, *values):
    files = []
    for number, value in enumerate(values):
        files += ["-f", str(tmp_path / ("values-%d.json" % number))]
        (tmp_path / ("values-%d.json" % number)).write_text(json.dumps(value), encoding="utf-8")
    out = subprocess.run([HELM, "template", "fluid", archive_path, "--namespace", "fluid-system"] + files,
                         capture_output=True, text=True, check=True).stdout
    return [obj for obj in yaml.safe_load_all(out) if obj]


def pod_spec(obj):
    spec = obj.get("spec") or {}
    if obj["kind"] == "CronJob":
        spec = spec["jobTemplate"]["spec"]
    return (spec.get("template") or {}).get("spec")


def images(obj):
    """The images of an object's pods, and those its controller gives the pods it makes (*_IMAGE_ENV)."""
    spec = pod_spec(obj) or {}
    found = []
    for container in spec.get("containers", []) + spec.get("initContainers", []):
        found.append(("%s %s" % (obj["metadata"]["name"], container["name"]), container["image"]))
        found += [("%s %s" % (obj["metadata"]["name"], env["name"]), env["value"])
                  for env in container.get("env", []) if env["name"].endswith("IMAGE_ENV")]
    return found


def test_every_image_of_every_part_comes_from_the_registry(archive, tmp_path):
    found = [image for obj in rendered(archive, tmp_path, EVERYTHING, fluid_previous.values(REGISTRY)) for image in images(obj)]
    assert len(found) > 20, found  # every controller, the CSI plugin, the webhook, the CRD upgrade job and the engines' images
    assert [(where, image) for where, image in found if not image.startswith(REGISTRY + "/")] == []


def test_the_parts_the_local_cluster_runs_are_images_images_sh_pushes(archive, tmp_path):
    listed = subprocess.run([IMAGES_SH, "upstream"], capture_output=True, text=True, check=True).stdout
    pushed = {"%s/%s" % (REGISTRY, upstream) for line in listed.splitlines() for upstream in line.split()[1:]}
    running = [obj for obj in rendered(archive, tmp_path, LOCAL_ROLE, fluid_previous.values(REGISTRY))
               if obj["kind"] in ("Deployment", "DaemonSet", "Job") and (obj["spec"].get("replicas") != 0)]
    assert sorted(obj["metadata"]["name"] for obj in running) == [
        "alluxioruntime-controller", "csi-nodeplugin-fluid", "dataset-controller", "fluidapp-controller", "thinruntime-controller"]
    missing = [(where, image.rsplit(":", 1)[0]) for obj in running for where, image in images(obj) if image not in pushed]
    assert missing == [("alluxioruntime-controller DEFAULT_INIT_IMAGE_ENV", "%s/%s" % (REGISTRY, name)) for name in fluid_previous.NOT_BUILT]


def _leaves(value, path=""):
    if not isinstance(value, dict) or not value:
        return [path]
    return [leaf for name, child in value.items() for leaf in _leaves(child, path + "." + name if path else name)]


@pytest.mark.usefixtures("archive")  # the chart unpacked beside it
def test_inventory_local_s_fluid_values_are_each_taken_or_said_not_to_be():
    local = fluid_previous.local_fluid_values()
    values = fluid_previous.values(REGISTRY)
    said = fluid_previous.CARRIED + fluid_previous.TRANSLATED + fluid_previous.NOT_TAKEN
    assert [leaf for leaf in _leaves(local) if not any(leaf == key or leaf.startswith(key + ".") for key in said)] == []
    assert values["runtime"]["syncRetryDuration"] == local["runtime"]["syncRetryDuration"]
    for part in ("runtime", "fuse"):
        image = local["runtime"]["alluxio"][part]
        whole = "%s/%s/%s:%s" % (REGISTRY, image["imagePrefix"], image["imageName"], image["imageTag"])
        assert values["runtime"]["alluxio"][part] == {"image": whole}
    # Not taken: no template of the chart reads them.
    templates = os.path.join(fluid_previous.CHART, "templates")
    texts = [open(os.path.join(folder, name), encoding="utf-8").read() for folder, _dirs, names in os.walk(templates) for name in names]
    assert len(texts) > 10
    for key in fluid_previous.NOT_TAKEN:
        assert [text for text in texts if ".Values." + key in text] == [], key
