"""The cache's metrics where a monitoring system finds them, on the deployment site.yml made: the
Services over the real Alluxio's master, worker and FUSE pods and Fluid's controllers, annotated
(the cluster has no Prometheus Operator at first), the master scraped as Prometheus scrapes it and
its figures against the status table's; then the Prometheus Operator's ServiceMonitor CRD
installed, the datasets and engine phases run again, each making its ServiceMonitor, which the
real API server validates against the CRD. The CRD stays for the tests after: the teardown then
deletes the dataset's ServiceMonitor too."""

import json
import re

from kubernetes import client

from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import format_bytes
from cluster_script import pinned_source
from conftest import wait_until
from playbook import run_playbook
from pods import DATASET, kubectl
from runbook_shell import run

ANNOTATIONS = {"prometheus.io/scrape": "true", "prometheus.io/path": "/metrics/prometheus/"}
# inventory/local: the AlluxioRuntime and ThinRuntime controllers, the application controller, no webhook.
CONTROLLERS = ["alluxioruntime-controller", "dataset-controller", "fluidapp-controller", "thinruntime-controller"]


def services(api, namespace, selector):
    return {s.metadata.name: s for s in client.CoreV1Api(api).list_namespaced_service(namespace, label_selector=selector).items}


def endpoints(api, name, namespace="default"):
    """[(ip, port)] of a Service's ready addresses."""
    found = client.CoreV1Api(api).read_namespaced_endpoints(name, namespace)
    return sorted((address.ip, port.port) for subset in found.subsets or [] for address in subset.addresses or [] for port in subset.ports)


def scrape(api, service):
    """The Prometheus text a dataset's Service's endpoint serves, through the API server's proxy."""
    return client.CoreV1Api(api).connect_get_namespaced_service_proxy_with_path("%s:web" % service, "default", "metrics/prometheus/")


def sample(text, name):
    """The value of an unlabelled sample NAME in Prometheus' text format."""
    match = re.search(r"^%s ([-0-9.E+]+)$" % re.escape(name), text, re.MULTILINE)
    assert match, "%s not served:\n%s" % (name, text[:2000])
    return float(match.group(1))


def cluster_reads(api):
    master = scrape(api, DATASET + "-metrics-master")
    return {name: sample(master, "Cluster_BytesRead" + name) for name in ("Local", "Remote", "UfsAll")}


def container_port(item, name):
    return next(port.container_port for container in item.spec.containers for port in container.ports or [] if port.name == name)


def test_each_alluxio_process_and_controller_has_an_annotated_service_with_its_endpoints(api, kubeconfig, site_run):  # pylint: disable=unused-argument
    found = services(api, "default", "fluidops.io/dataset=" + DATASET)
    assert sorted(found) == ["imagenet-metrics-fuse", "imagenet-metrics-master", "imagenet-metrics-worker"]
    assert all(ANNOTATIONS.items() <= (s.metadata.annotations or {}).items() and s.spec.cluster_ip == "None" for s in found.values())
    core = client.CoreV1Api(api)
    # Master and worker: the web port Fluid allocated to each pod on its node, by the port's name.
    for component in ("master", "worker"):
        [item] = core.list_namespaced_pod("default", label_selector="release=%s,role=alluxio-%s" % (DATASET, component)).items
        assert endpoints(api, "%s-metrics-%s" % (DATASET, component)) == [(item.status.pod_ip, container_port(item, "web"))]
    # FUSE: every FUSE pod, on the dataset's own port, which its runtime turned FUSE's web server on at.
    runtime = client.CustomObjectsApi(api).get_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "alluxioruntimes", DATASET)
    port = int(runtime["spec"]["properties"]["alluxio.fuse.web.port"])
    fuse = core.list_namespaced_pod("default", label_selector="release=%s,role=alluxio-fuse" % DATASET).items
    wait_until(lambda: len(endpoints(api, DATASET + "-metrics-fuse")) == len(fuse), 120, what="every FUSE pod ready behind its Service")
    assert endpoints(api, DATASET + "-metrics-fuse") == sorted((item.status.pod_ip, port) for item in fuse)
    assert re.search(r"^Client_\S+ [-0-9.E+]+$", scrape(api, DATASET + "-metrics-fuse"), re.MULTILINE)
    controllers = services(api, "fluid-system", "fluidops.io/metrics=fluid")
    assert sorted(s.spec.selector["control-plane"] for s in controllers.values()) == CONTROLLERS
    assert all(endpoints(api, name, "fluid-system") and s.metadata.annotations["prometheus.io/path"] == "/metrics"
               for name, s in controllers.items())


def test_the_master_serves_the_status_table_s_figures_and_the_counters_of_its_hit_ratio(api, kubeconfig, tmp_path):
    table = tmp_path / "status.txt"
    returncode, output = run_playbook("playbooks/status.yml", extra_vars={"cache_status_table_path": str(table)})
    assert returncode == 0, output[-3000:]
    row = next(line.split() for line in table.read_text().splitlines() if line.startswith(DATASET + " ") and "Bound" in line)
    master = scrape(api, DATASET + "-metrics-master")
    # The table's CACHED and CACHE CAPACITY, written as Fluid writes sizes.
    assert [format_bytes(int(sample(master, "Cluster_CapacityUsed"))), format_bytes(int(sample(master, "Cluster_CapacityTotal")))] == row[2:4]
    # Fluid's hit ratio: bytes read from the cache among all bytes read over its last minute, from
    # these counters (pkg/ddc/alluxio/report.go). An Alluxio client reads the warm split (not a pod
    # through FUSE: the node's page cache may hold what the training read, kernel_cache): the
    # cache's counters grow (the workers count a little less than the bytes the client got), the
    # store's not at all, and Fluid's ratio for a minute of such reads is 100%.
    before = cluster_reads(api)
    kubectl(kubeconfig, "exec", DATASET + "-master-0", "-c", "alluxio-master", "--", "sh", "-c",
            "alluxio fs copyToLocal /%s/train /tmp/metrics-read > /dev/null && rm -rf /tmp/metrics-read" % DATASET)

    def counted():  # the workers report their counters to the master every few seconds
        now = cluster_reads(api)
        return now if now["Local"] + now["Remote"] > before["Local"] + before["Remote"] else None
    after = wait_until(counted, 120, every=2, what="the master counting the reads from the cache")
    assert after["UfsAll"] == before["UfsAll"], (before, after)
    wait_until(lambda: kubectl(kubeconfig, "get", "dataset", DATASET, "-o", "jsonpath={.status.cacheStates.cacheHitRatio}").stdout == "100.0%",
               300, every=2, what="Fluid's hit ratio of the minute of the reads")
    # The table shows Fluid's figure, whichever minute it is of by now.
    report = tmp_path / "status.json"
    returncode, output = run_playbook("playbooks/status.yml",
                                      extra_vars={"cache_status_table_path": str(table), "cache_status_json_path": str(report)})
    assert returncode == 0, output[-3000:]
    [summary] = [d for d in json.loads(report.read_text())["datasets"] if d["name"] == DATASET]
    runtime_row = [line.split() for line in table.read_text().splitlines() if line.startswith(DATASET + " ") and "AlluxioRuntime" in line][0]
    assert runtime_row[-1] == "%.1f%%" % summary["hit_ratios"]["cacheHitRatio"]


def test_the_metrics_runbook_finds_every_endpoint(shell):
    run(shell, "metrics-services")
    run(shell, "metrics-master")
    run(shell, "metrics-controllers")


def test_with_the_prometheus_operator_s_crd_each_phase_makes_its_servicemonitor(api, kubeconfig, shell):
    kubectl(kubeconfig, "apply", "--server-side", "-f", pinned_source("monitoring.coreos.com_servicemonitors.yaml"))
    kubectl(kubeconfig, "wait", "--for=condition=Established", "crd/servicemonitors.monitoring.coreos.com", "--timeout=60s")
    run(shell, "metrics-apply")
    monitors = client.CustomObjectsApi(api)
    dataset = monitors.get_namespaced_custom_object("monitoring.coreos.com", "v1", "default", "servicemonitors", DATASET + "-metrics")
    selector = ",".join("%s=%s" % item for item in dataset["spec"]["selector"]["matchLabels"].items())
    found = services(api, "default", selector)
    assert sorted(found) == ["imagenet-metrics-fuse", "imagenet-metrics-master", "imagenet-metrics-worker"]
    # The ServiceMonitor instead of the annotations: a Prometheus with both jobs scrapes each endpoint once.
    assert not any((s.metadata.annotations or {}).get("prometheus.io/scrape") for s in found.values())
    controllers = monitors.get_namespaced_custom_object("monitoring.coreos.com", "v1", "fluid-system", "servicemonitors",
                                                        "fluid-controllers-metrics")
    assert controllers["spec"]["endpoints"] == [{"port": "metrics", "path": "/metrics"}]
    output = run(shell, "metrics-apply")  # the runbook: a second run changes nothing
    assert set(re.findall(r"changed=(\d+)", output)) == {"0"}, output[-3000:]
