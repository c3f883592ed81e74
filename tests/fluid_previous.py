"""Fluid's release before the pinned one (FLUID_PREVIOUS_VERSION in tools/localcluster/versions.env,
1.0.0: the newest the Go module proxy serves before 1.0.8), as the upgrade test installs it on the
local cluster through the bundle before upgrading: its chart archive and version, which
``tools/localcluster/build.sh fluid-previous`` leaves, and ``values(registry)``, the whole
``fluid_values`` that runs it from the local registry.

1.0.0's chart names each image whole (``dataset.controller.image:
fluidcloudnative/dataset-controller:v1.0.0-31f5433``) where 1.0.8's splits it into imagePrefix,
imageName and imageTag: the bundle's ``fluidops_image_registry``, which sends every imagePrefix to
the mirror, finds none in it. So ``values`` sends every image of the chart's defaults to the
registry itself, as images.sh pushes them (fluid-controllers-previous, fluid-csi-previous and the
registrar under their upstream references; the images no node runs there, such as the webhook's,
are named as a mirror would hold them, and are not in it).

Given as an extra var, ``fluid_values`` replaces inventory/local's. What 1.0.0 takes of that:
  - ``runtime.syncRetryDuration``: the same key, kept;
  - ``runtime.alluxio.runtime`` and ``.fuse`` (imagePrefix, imageName, imageTag): the same Alluxio
    image, as 1.0.0's ``image``;
  - ``runtime.alluxio.env`` (FLUID_RUNTIME_RECONCILE_DURATION): nothing. 1.0.0's controller template
    passes no env, and its code has no such variable: a Ready runtime is requeued every 90 s, fixed
    (pkg/controllers/runtime_controller.go, the end of ReconcileRuntime), its cache states synced
    then, at most once per syncRetryDuration. So its dataset's cached percentage moves every 90 s,
    not every 10 s as on 1.0.8 with the inventory's.
Nor does 1.0.0 have keys of 1.0.8's that inventory/local leaves at their defaults: the controllers'
resources, kubeClientQPS and workQueue settings (its controllers' limits are fixed: 100m, 1536Mi),
csi.useNodeAuthorization (its CSI plugin always mounts the kubelet's kubeconfig, as 1.0.8's default
does).
"""

import os

import yaml

from ansible_collections.fluidops.accel.plugins.module_utils.common.images import mirrored
from playbook import PARTS

# build.sh's link to $cache/fluid-<FLUID_PREVIOUS_VERSION>: the charts of the module and the
# packaged fluid chart.
DIR = os.path.join(PARTS, "fluid-previous")
CHART = os.path.join(DIR, "charts", "fluid", "fluid")
LOCAL_SETTINGS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "inventory", "local", "group_vars",
                              "all", "deployment.yml")
# The keys of an image reference in Fluid's charts (JuiceFS's: ce and ee).
IMAGE_KEYS = ("image", "ceimage", "eeimage")
# inventory/local's fluid_values that values() carries over or translates, and those 1.0.0 does not
# take (the docstring says why).
CARRIED = ("runtime.syncRetryDuration",)
TRANSLATED = ("runtime.alluxio.runtime", "runtime.alluxio.fuse")
NOT_TAKEN = ("runtime.alluxio.env",)
# The images the parts the local cluster runs name that images.sh does not build: Fluid's init-users,
# which the AlluxioRuntime controller (DEFAULT_INIT_IMAGE_ENV) puts in a runtime's pods only for a
# runtime with spec.runAs (pkg/ddc/alluxio/transform_init_users.go), and in a DataBackup's; the
# bundle sets neither. A DataLoad runs the runtime's own image (load_data.go).
NOT_BUILT = ("fluidcloudnative/init-users",)


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def version():
    """The chart's version, for fluid_chart_version (1.0.0)."""
    return str(_load(os.path.join(CHART, "Chart.yaml"))["version"])


def archive():
    """The packaged chart, for fluid_chart_ref."""
    return os.path.join(DIR, "fluid-%s.tgz" % version())


def _mirrored_images(defaults, registry):
    """A values override of the same nesting: every image of ``defaults`` as ``registry`` serves it."""
    override = {}
    for name, child in defaults.items():
        if name in IMAGE_KEYS and isinstance(child, str):
            override[name] = mirrored(child, registry)
        elif isinstance(child, dict):
            nested = _mirrored_images(child, registry)
            if nested:
                override[name] = nested
    return override


def local_fluid_values():
    """inventory/local's fluid_values, as site.yml takes them for 1.0.8."""
    return _load(LOCAL_SETTINGS)["fluid_values"]


def values(registry):
    """The fluid_values that run the previous release's chart from ``registry`` (host:port, as
    cluster.sh up writes it), with what it takes of inventory/local's fluid_values."""
    result = _mirrored_images(_load(os.path.join(CHART, "values.yaml")), registry)
    local = local_fluid_values()["runtime"]
    result["runtime"]["syncRetryDuration"] = local["syncRetryDuration"]
    for part in ("runtime", "fuse"):
        image = local["alluxio"][part]
        result["runtime"]["alluxio"][part]["image"] = mirrored("%(imagePrefix)s/%(imageName)s:%(imageTag)s" % image, registry)
    return result


def extra_vars(registry):
    """The variables that make site.yml (or engine.yml) deploy the previous release instead."""
    return {"fluid_chart_ref": archive(), "fluid_chart_version": version(), "fluid_values": values(registry)}
