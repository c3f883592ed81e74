"""The local cluster's simulator (tools/localcluster/simulator.py) keeps one kwok Logs object per
pod, owned by the pod: one an earlier pod of the same name left, which the garbage collector
has not removed yet, is replaced rather than taken for the new pod's."""

import os
import sys
import types

from kubernetes.client.rest import ApiException

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools", "localcluster"))
import simulator  # noqa: E402  pylint: disable=wrong-import-position


class FakeCustom:
    """The custom objects API as far as serve_for_pod uses it, keyed by (plural, namespace, name)."""

    def __init__(self, objects=None):
        self.objects = dict(objects or {})
        self.calls = []

    def get_namespaced_custom_object(self, _group, _version, namespace, plural, name):
        if (plural, namespace, name) not in self.objects:
            raise ApiException(status=404)
        return self.objects[(plural, namespace, name)]

    def delete_namespaced_custom_object(self, _group, _version, namespace, plural, name):
        self.calls.append(("delete", plural, name))
        self.objects.pop((plural, namespace, name))

    def create_namespaced_custom_object(self, _group, _version, namespace, plural, body):
        self.calls.append(("create", plural, body["metadata"]["name"]))
        if (plural, namespace, body["metadata"]["name"]) in self.objects:
            raise ApiException(status=409)
        self.objects[(plural, namespace, body["metadata"]["name"])] = body


LOGS = {"logs": [{"containers": ["launcher"], "logsFile": "/tmp/train-launcher.log", "follow": False}]}


def launcher(uid):
    return types.SimpleNamespace(metadata=types.SimpleNamespace(namespace="default", name="train-launcher", uid=uid))


def owned(uid):
    return {"metadata": {"name": "train-launcher", "ownerReferences": [{"kind": "Pod", "uid": uid}]}, "spec": {}}


def simulated(custom):
    sim = simulator.Simulator.__new__(simulator.Simulator)
    sim.custom = custom
    return sim


def test_a_pod_without_one_gets_its_own():
    custom = FakeCustom()
    assert simulated(custom).serve_for_pod(launcher("uid-2"), "logs", "Logs", LOGS)
    made = custom.objects[("logs", "default", "train-launcher")]
    assert made["kind"] == "Logs" and made["metadata"]["ownerReferences"][0]["uid"] == "uid-2"


def test_the_one_of_an_earlier_pod_of_that_name_is_replaced():
    custom = FakeCustom({("logs", "default", "train-launcher"): owned("uid-1")})
    assert simulated(custom).serve_for_pod(launcher("uid-2"), "logs", "Logs", LOGS)
    assert custom.calls == [("delete", "logs", "train-launcher"), ("create", "logs", "train-launcher")]
    assert custom.objects[("logs", "default", "train-launcher")]["metadata"]["ownerReferences"][0]["uid"] == "uid-2"


def test_the_pods_own_is_left_alone():
    custom = FakeCustom({("logs", "default", "train-launcher"): owned("uid-2")})
    assert not simulated(custom).serve_for_pod(launcher("uid-2"), "logs", "Logs", LOGS)
    assert custom.calls == []


class FakeCore:
    """The core API as far as simulated_pods lists: nodes, and pods by label selector."""

    def __init__(self, nodes, pods):
        self.nodes, self.pods = nodes, pods

    def list_node(self):
        return types.SimpleNamespace(items=[types.SimpleNamespace(metadata=types.SimpleNamespace(name=name, annotations=notes))
                                            for name, notes in self.nodes.items()])

    def list_pod_for_all_namespaces(self, label_selector):
        assert label_selector == "training.kubeflow.org/job-role=launcher"
        return types.SimpleNamespace(items=[types.SimpleNamespace(metadata=types.SimpleNamespace(name=name),
                                                                  spec=types.SimpleNamespace(node_name=node))
                                            for name, node in self.pods.items()])


def test_only_the_pods_of_kwok_nodes_are_played():
    """A pod on a real node (a kubelet's) runs its own program; an unscheduled one none yet."""
    sim = simulator.Simulator.__new__(simulator.Simulator)
    sim.core = FakeCore({"gpu-node-1": None, "gpu-node-5": {"kwok.x-k8s.io/node": "fake"}},
                        {"on-real": "gpu-node-1", "on-kwok": "gpu-node-5", "pending": None})
    assert [pod.metadata.name for pod in sim.simulated_pods("training.kubeflow.org/job-role=launcher")] == ["on-kwok"]
