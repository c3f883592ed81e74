"""The objects that show a monitoring system the cache's metrics: a headless Service per scrape
endpoint of each AlluxioRuntime and Fluid controller, annotated or selected by a ServiceMonitor."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.filter.dataset_objects import fluid_dataset_manifests
from ansible_collections.fluidops.accel.plugins.filter.metrics_objects import fluid_metrics_objects
from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError
from ansible_collections.fluidops.accel.plugins.module_utils.fluid import metrics
from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import build_dataset
from ansible_collections.fluidops.accel.tests.unit.plugins.test_fluid_manifests import CONTEXT, pvc_dataset


def built(mode, item=None):
    return build_dataset(item or pvc_dataset(), 0, dict(CONTEXT, metrics=mode))["manifests"]


def by_name(objects):
    return {(o["kind"], o["metadata"]["name"]): o for o in objects}


@pytest.mark.parametrize("mode, served, kind", [
    ("auto", True, "servicemonitor"), ("auto", False, "annotations"), ("auto", None, "annotations"),
    ("annotations", True, "annotations"), ("servicemonitor", False, "servicemonitor"), ("off", True, "off")])
def test_auto_takes_a_servicemonitor_where_the_crd_is_served(mode, served, kind):
    assert metrics.resolve_mode(mode, served) == kind


def test_an_unknown_mode_is_refused_naming_the_variable_and_the_choices():
    with pytest.raises(InputError, match="fluidops_metrics=prometheus is not one of auto, servicemonitor, annotations, off"):
        metrics.resolve_mode("prometheus", True)


def test_an_alluxio_dataset_gets_a_service_per_component_selecting_its_pods_by_the_chart_s_labels():
    objects = by_name(built("annotations"))
    master = objects[("Service", "fluid-imagenet-metrics-master")]
    assert master["spec"]["selector"] == {"release": "fluid-imagenet", "role": "alluxio-master"}
    assert master["spec"]["clusterIP"] == "None"
    # The allocated web port, by the container port's name: each endpoint carries its pod's.
    assert master["spec"]["ports"] == [{"name": "web", "port": 19999, "targetPort": "web", "protocol": "TCP"}]
    assert master["metadata"]["annotations"] == {"prometheus.io/scrape": "true", "prometheus.io/path": "/metrics/prometheus/"}
    assert objects[("Service", "fluid-imagenet-metrics-worker")]["spec"]["selector"]["role"] == "alluxio-worker"
    fuse = objects[("Service", "fluid-imagenet-metrics-fuse")]
    assert fuse["spec"]["selector"] == {"release": "fluid-imagenet", "role": "alluxio-fuse"}
    runtime = objects[("AlluxioRuntime", "fluid-imagenet")]["spec"]["properties"]
    # FUSE declares no port: its web server is turned on at the dataset's own port, which the Service names.
    assert runtime["alluxio.fuse.web.enabled"] == "true"
    assert fuse["spec"]["ports"][0]["targetPort"] == int(runtime["alluxio.fuse.web.port"])
    assert not any(o["kind"] == "ServiceMonitor" for o in objects.values())


def test_servicemonitor_drops_the_annotations_and_selects_the_dataset_s_services():
    objects = built("servicemonitor")
    services = [o for o in objects if o["kind"] == "Service"]
    assert len(services) == 3 and not any("annotations" in s["metadata"] for s in services)
    (monitor,) = [o for o in objects if o["kind"] == "ServiceMonitor"]
    selected = [s for s in services if all(s["metadata"]["labels"].get(k) == v for k, v in monitor["spec"]["selector"]["matchLabels"].items())]
    assert selected == services
    assert monitor["spec"]["endpoints"] == [{"port": "web", "path": "/metrics/prometheus/"}]
    # Another dataset's Services are not selected.
    other = [o for o in built("servicemonitor", dict(pvc_dataset(), name="other")) if o["kind"] == "Service"]
    assert not any(all(s["metadata"]["labels"].get(k) == v for k, v in monitor["spec"]["selector"]["matchLabels"].items()) for s in other)


def test_off_makes_no_metrics_objects_and_leaves_fuse_s_web_server_off():
    dataset, runtime = built("off")
    assert "alluxio.fuse.web.enabled" not in runtime["spec"].get("properties", {})


def test_the_default_fuse_port_is_stable_per_dataset_and_its_own_is_kept():
    first = metrics.default_fuse_port("default", "imagenet")
    assert first == metrics.default_fuse_port("default", "imagenet") != metrics.default_fuse_port("team", "imagenet")
    assert 27000 <= first < 28000
    runtime = built("annotations", pvc_dataset(properties={"alluxio.fuse.web.port": "27123"}))[1]
    assert runtime["spec"]["properties"]["alluxio.fuse.web.port"] == "27123"


def test_two_datasets_with_one_fuse_port_are_refused_naming_both():
    context = dict(CONTEXT, metrics="auto")
    items = [dict(pvc_dataset(replicas=1, properties={"alluxio.fuse.web.port": "27500"}), name=name) for name in ("fluid-imagenet", "b")]
    with pytest.raises(AnsibleFilterError, match=r"datasets_list\[1\] \(b\): its FUSE metrics port 27500 is also datasets_list\[0\] "
                                                 r"\(fluid-imagenet\)'s: set runtime.properties.alluxio.fuse.web.port to another port"):
        fluid_dataset_manifests(items, context)


def test_a_dataset_name_too_long_for_its_metrics_service_is_refused():
    with pytest.raises(InputError, match="the metrics Service %s-metrics-master: is not a DNS-1035 label" % ("a" * 55)):
        built("annotations", dict(pvc_dataset(), name="a" * 55))


def test_jindo_and_thin_datasets_get_no_alluxio_metrics_objects():
    item = {"name": "j", "mounts": [{"mount_point": "pvc://c"}], "runtime": {"type": "jindo", "tiers": [{"medium": "SSD", "path": "/x", "quota": "1Gi"}]}}
    assert [o["kind"] for o in built("annotations", item)] == ["Dataset", "JindoRuntime"]


def test_a_service_per_fluid_controller_the_release_enables():
    values = {"runtime": {"mountRoot": "/runtime-mnt", "alluxio": {"enabled": True}, "jindo": {"enabled": False}, "thin": {"enabled": True}},
              "webhook": {"enabled": False}}
    objects = fluid_metrics_objects(values, "fluid-system", "servicemonitor")
    services = [o for o in objects if o["kind"] == "Service"]
    assert [s["spec"]["selector"]["control-plane"] for s in services] == [
        "dataset-controller", "alluxioruntime-controller", "thinruntime-controller", "fluidapp-controller"]
    assert all(s["spec"]["ports"] == [{"name": "metrics", "port": 8080, "targetPort": 8080, "protocol": "TCP"}] for s in services)
    (monitor,) = [o for o in objects if o["kind"] == "ServiceMonitor"]
    assert monitor["spec"]["endpoints"] == [{"port": "metrics", "path": "/metrics"}]
    assert fluid_metrics_objects(values, "fluid-system", "off") == []
    annotated = fluid_metrics_objects(dict(values, webhook={"enabled": True}), "fluid-system", "auto")
    assert annotated[-1]["spec"]["selector"] == {"control-plane": "fluid-webhook"}
    assert annotated[0]["metadata"]["annotations"] == {"prometheus.io/scrape": "true", "prometheus.io/path": "/metrics"}


def test_a_dataset_given_twice_is_left_to_the_inventory_checks_not_called_a_port_clash():
    # module_utils/common/inventory.py names the duplicate; the two share a port only because they are one.
    items = [dict(pvc_dataset(replicas=1), placement="Shared"), dict(pvc_dataset(replicas=1), placement="Shared")]
    assert len(fluid_dataset_manifests(items, dict(CONTEXT, metrics="auto"))["manifests"]) == 10


def test_a_name_fluid_refuses_is_named_as_the_dataset_s_not_as_its_metrics_service():
    with pytest.raises(AnsibleFilterError, match=r"Dataset default/1k-imagenet: metadata.name=1k-imagenet is not a DNS-1035 label"):
        fluid_dataset_manifests([dict(pvc_dataset(), name="1k-imagenet")], dict(CONTEXT, metrics="auto"))
