# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a monitoring system finds the cache's metrics: a headless Service per scrape endpoint
(Alluxio's master, workers and FUSE of each AlluxioRuntime; each Fluid controller), annotated
for Prometheus' ``kubernetes-service-endpoints`` discovery, or selected by a Prometheus Operator
ServiceMonitor where the cluster serves that CRD.

Fluid 1.0.8 documents only the master (docs/en/operation/monitoring.md: its Service labelled
``monitor: alluxio_runtime_metrics``, port ``web``, path ``/metrics/prometheus``); its charts give
the workers and FUSE no Service and the controllers none either (charts/fluid/fluid/templates/
controller/*.yaml declare ``containerPort: 8080, name: metrics``). Master and worker web ports are
allocated by Fluid on the node (hostNetwork, pkg/ddc/alluxio/transform.go): the Services name the
containers' port ``web`` instead of a number, so each endpoint carries the port its pod got. The
FUSE pod declares no port: its web server (Alluxio's ``alluxio.fuse.web.*``, off by default) gets
a port of its own per dataset, so that two datasets' FUSE pods on one node do not collide.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import zlib

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import is_name, name_problem, require

# What fluidops_metrics takes: auto (a ServiceMonitor where the CRD is served, else annotations),
# one of the two, or off (no metrics objects, FUSE's web server left off).
MODES = ("auto", "servicemonitor", "annotations", "off")
SERVICE_MONITOR_API = "monitoring.coreos.com/v1"
SERVICE_MONITOR_CRD = "servicemonitors.monitoring.coreos.com"
# Every Alluxio web server serves it (core/server/common/.../web/WebServer.java adds
# PrometheusMetricsServlet, SERVLET_PATH /metrics/prometheus; Jetty redirects without the slash).
ALLUXIO_PATH = "/metrics/prometheus/"
# controller-runtime's metrics server (Fluid's cmd/*: --metrics-addr :8080).
CONTROLLER_PATH = "/metrics"
CONTROLLER_PORT = 8080
# Labels on every metrics object: what it is for, and whose it is (teardown deletes by them).
PURPOSE_LABEL = "fluidops.io/metrics"
DATASET_LABEL = "fluidops.io/dataset"
FUSE_WEB_ENABLED = "alluxio.fuse.web.enabled"
FUSE_WEB_PORT = "alluxio.fuse.web.port"
# The FUSE web ports a dataset gets by default, one per dataset from its namespace and name,
# stable as datasets come and go: clear of the ports Fluid allocates on the nodes (its
# --runtime-node-port-range, 20000-26000), of Alluxio's defaults (19998-20003, 29999-30003) and of Linux's
# ephemeral ports (32768 up), which Alluxio's own FUSE default, 49999, is among.
FUSE_PORT_BASE, FUSE_PORT_SPAN = 27000, 1000
# The runtime chart's pod labels (Fluid charts/alluxio/templates/{master,worker}/statefulset.yaml,
# fuse/daemonset.yaml; release is the runtime's name), and each Service's port: Alluxio's default
# web port of the component (PropertyKey MASTER_WEB_PORT, WORKER_WEB_PORT), for its name only: the
# endpoints carry the port each pod got.
ALLUXIO_ROLES = (("master", "alluxio-master", 19999), ("worker", "alluxio-worker", 30000), ("fuse", "alluxio-fuse", None))
# The chart's Deployments with a metrics port, by the component that enables each, and their
# control-plane label (Fluid charts/fluid/fluid/templates/controller/*.yaml, webhook/webhook.yaml).
DATASET_CONTROLLER = "dataset-controller"
FLUIDAPP_CONTROLLER = "fluidapp-controller"
WEBHOOK = "fluid-webhook"


def resolve_mode(mode, servicemonitor_served, where="fluidops_metrics"):
    """The kind of metrics objects to make: ``mode`` as given, auto resolved by whether the
    cluster serves the ServiceMonitor CRD (None: not known, as in render mode: annotations)."""
    require(mode in MODES, "%s=%s is not one of %s" % (where, mode, ", ".join(MODES)))
    if mode != "auto":
        return mode
    return "servicemonitor" if servicemonitor_served else "annotations"


def default_fuse_port(namespace, name):
    """A dataset's FUSE web port unless its properties give one: from its namespace and name."""
    return FUSE_PORT_BASE + zlib.crc32(("%s/%s" % (namespace, name)).encode("utf-8")) % FUSE_PORT_SPAN


def fuse_web_properties(properties, namespace, name):
    """The FUSE web server's properties a runtime gets for its metrics, its own settings kept."""
    port = properties.get(FUSE_WEB_PORT, default_fuse_port(namespace, name))
    return {FUSE_WEB_ENABLED: "true", FUSE_WEB_PORT: str(port)}


def check_fuse_ports(runtimes):
    """Two runtimes in one cluster with the same FUSE web port would collide on a node they share
    (FUSE runs in the node's network): ``runtimes`` are (where, runtime manifest). One dataset
    given twice is the inventory checks' to name (module_utils/common/inventory.py)."""
    seen = {}
    for where, runtime in runtimes:
        port = (runtime["spec"].get("properties") or {}).get(FUSE_WEB_PORT)
        key = (runtime["metadata"].get("namespace"), runtime["metadata"]["name"])
        if port is None:
            continue
        other = seen.setdefault(port, (where, key))
        require(other[1] == key, "%s: its FUSE metrics port %s is also %s's: set runtime.properties.%s to another port"
                % (where, port, other[0], FUSE_WEB_PORT))


def _service(name, namespace, labels, selector, port, path, mode, target=None):
    metadata = {"name": name, "namespace": namespace, "labels": dict(labels)}
    if mode == "annotations":
        metadata["annotations"] = {"prometheus.io/scrape": "true", "prometheus.io/path": path}
    # Headless: a monitoring system scrapes each pod, not one picked by a virtual IP.
    return {"apiVersion": "v1", "kind": "Service", "metadata": metadata,
            "spec": {"clusterIP": "None", "selector": dict(selector),
                     "ports": [{"name": "web" if path == ALLUXIO_PATH else "metrics", "port": port,
                                "targetPort": target or port, "protocol": "TCP"}]}}


def _service_monitor(name, namespace, labels, port_name, path, target_labels):
    return {"apiVersion": SERVICE_MONITOR_API, "kind": "ServiceMonitor",
            "metadata": {"name": name, "namespace": namespace, "labels": dict(labels)},
            "spec": {"selector": {"matchLabels": dict(labels)}, "podTargetLabels": list(target_labels),
                     "endpoints": [{"port": port_name, "path": path}]}}


def dataset_metrics(runtime, mode):
    """The metrics objects of an AlluxioRuntime manifest (whose properties hold its FUSE web port),
    for ``mode`` resolved (resolve_mode): a Service for its master, workers and FUSE each, and a
    ServiceMonitor over them for servicemonitor; none for off."""
    if mode == "off":
        return []
    name, namespace = runtime["metadata"]["name"], runtime["metadata"]["namespace"]
    # A name Fluid refuses is the Dataset's own error (the schema checks name it first); one it
    # takes may still be too long for the Services' suffix.
    longest = "%s-metrics-master" % name
    problem = name_problem(longest, "dns1035")
    require(problem is None or not is_name(name, "dns1035"),
            "the metrics Service %s: %s: shorten the dataset's name, or set fluidops_metrics: off" % (longest, problem))
    fuse_port = int(runtime["spec"]["properties"][FUSE_WEB_PORT])
    labels = {PURPOSE_LABEL: "alluxio", DATASET_LABEL: name}
    objects = [_service("%s-metrics-%s" % (name, component), namespace, dict(labels, **{"fluidops.io/component": component}),
                        {"release": name, "role": role}, port or fuse_port, ALLUXIO_PATH, mode, target=None if port is None else "web")
               for component, role, port in ALLUXIO_ROLES]
    if mode == "servicemonitor":
        # As Fluid's own scrape configuration does (integration/prometheus/prometheus.yaml): the
        # runtime's name (release) and the pod's role on every series.
        objects.append(_service_monitor(name + "-metrics", namespace, labels, "web", ALLUXIO_PATH, ["release", "role"]))
    return objects


def controllers_of(values):
    """The control-plane labels of the Fluid chart's Deployments that serve metrics, from the
    release's values (the chart's defaults merged under the role's): the dataset controller, a
    controller per runtime enabled, the application controller and the webhook when enabled."""
    runtimes = values.get("runtime") or {}
    names = [DATASET_CONTROLLER] + ["%sruntime-controller" % name for name in sorted(runtimes)
                                    if isinstance(runtimes[name], dict) and runtimes[name].get("enabled")]
    # Both are on in the chart's defaults.
    fluidapp, webhook = ((values.get(key) or {}).get("enabled", True) for key in ("fluidapp", "webhook"))
    return names + ([FLUIDAPP_CONTROLLER] if fluidapp else []) + ([WEBHOOK] if webhook else [])


def controller_metrics(namespace, names, mode):
    """A Service per Fluid controller (``names``: their control-plane labels) and, for
    servicemonitor, a ServiceMonitor over them; none for off."""
    if mode == "off":
        return []
    labels = {PURPOSE_LABEL: "fluid"}
    objects = [_service("%s-metrics" % name, namespace, dict(labels, **{"fluidops.io/component": name}), {"control-plane": name},
                        CONTROLLER_PORT, CONTROLLER_PATH, mode) for name in names]
    if mode == "servicemonitor":
        objects.append(_service_monitor("fluid-controllers-metrics", namespace, labels, "metrics", CONTROLLER_PATH, ["control-plane"]))
    return objects
