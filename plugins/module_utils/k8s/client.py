# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The API calls the project's modules make, counted.

``KubeClient`` wraps kubernetes.core's ``K8SClient`` (its auth options, kubeconfig handling and
discovery cache) with the few reads and writes the modules need, and records every call so a
module can report how many it made and tests can assert which.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import http.client
import time

try:
    from kubernetes.client.rest import ApiException
    from kubernetes.dynamic.exceptions import NotFoundError
    from kubernetes.watch import Watch
except ImportError:  # reported by AnsibleK8SModule's dependency check
    # Stand-ins that nothing raises: an `except` on them catches no other error.
    class ApiException(Exception):
        pass

    class NotFoundError(ApiException):
        pass

    Watch = object

try:
    from urllib3.exceptions import HTTPError as Urllib3Error
except ImportError:
    Urllib3Error = OSError

# How a connection to the API server fails or ends early, as the Python client shows it. The
# excepts below catch Exception and test it against these: pylint, run by ansible-test in a venv
# without urllib3, cannot tell that Urllib3Error is an exception and refuses the tuple in an except.
CONNECTION_ERRORS = (Urllib3Error, OSError, http.client.HTTPException)
# A watch's reads may wait this much longer than the server's own timeoutSeconds; then the
# connection counts as dropped. Connecting may take CONNECT_SECONDS.
WATCH_READ_GRACE = 15
CONNECT_SECONDS = 10


class TimedWatch(Watch):
    """The client's Watch, with a read timeout on its stream. A connection that goes silent without
    a reset (a NAT or a load balancer forgetting it, a half-open TCP connection) would otherwise
    block the read for ever: the apiserver's own timeout cannot reach a client it cannot reach."""

    def __init__(self, read_seconds):
        super(TimedWatch, self).__init__()
        self.read_seconds = read_seconds

    def stream(self, func, *args, **kwargs):
        kwargs.setdefault("_request_timeout", (CONNECT_SECONDS, self.read_seconds))
        return super(TimedWatch, self).stream(func, *args, **kwargs)


class ApiUnreachable(Exception):
    """The API server could not be reached (again) before a wait's deadline."""


class KubeClient(object):
    """Reads and writes of any kind; ``api_version`` is the group/version of ``kind`` (v1, batch/v1,
    data.fluid.io/v1alpha1)."""

    def __init__(self, k8s_client, clock=time.monotonic, pause=time.sleep):
        self.k8s = k8s_client
        self.calls = []
        self.clock = clock
        self.pause = pause
        self.reconnects = 0
        self._resources = {}

    def counts(self):
        """What the module reports of its traffic: API requests made, and attempts to list again after a watch dropped."""
        return dict(api_calls=len(self.calls), reconnects=self.reconnects)

    def resource(self, kind, api_version):
        key = (kind, api_version)
        if key not in self._resources:
            self._resources[key] = self.k8s.resource(kind, api_version)
        return self._resources[key]

    def get(self, kind, name, namespace, api_version):
        """The object as a dict, or None when it does not exist."""
        self.calls.append(("get", kind, namespace, name))
        try:
            return self.k8s.get(self.resource(kind, api_version), name=name, namespace=namespace).to_dict()
        except NotFoundError:
            return None

    def list(self, kind, namespace, api_version, label_selector=None, field_selector=None):
        """(items as dicts, the list's resourceVersion)."""
        self.calls.append(("list", kind, namespace, label_selector or field_selector))
        params = {"namespace": namespace}
        if label_selector:
            params["label_selector"] = label_selector
        if field_selector:
            params["field_selector"] = field_selector
        result = self.k8s.get(self.resource(kind, api_version), **params).to_dict()
        return result.get("items") or [], (result.get("metadata") or {}).get("resourceVersion")

    def list_metadata(self, kind, api_version, namespace=None):
        """The objects' metadata only (a PartialObjectMetadataList, as ``kubectl get -o name``
        asks): no spec or status crosses the wire."""
        self.calls.append(("list", kind, namespace, "metadata"))
        resource = self.resource(kind, api_version)
        result = self.k8s.client.request("get", resource.path(namespace=namespace), header_params={
            "Accept": "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}).to_dict()
        return result.get("items") or []

    def server_side_apply(self, kind, body, api_version, namespace=None, field_manager="fluidops", force_conflicts=False):
        """``kubectl apply --server-side``: the object as the API server then has it."""
        self.calls.append(("apply", kind, namespace, body["metadata"]["name"]))
        return self.k8s.client.server_side_apply(self.resource(kind, api_version), body, namespace=namespace,
                                                 field_manager=field_manager, force_conflicts=force_conflicts).to_dict()

    def watch(self, kind, namespace, resource_version, seconds, api_version):
        """Events (type, object dict) for ``seconds`` at most, from ``resource_version``."""
        self.calls.append(("watch", kind, namespace, seconds))
        stream = self.k8s.client.watch(self.resource(kind, api_version), namespace=namespace, resource_version=resource_version,
                                       timeout=seconds, watcher=TimedWatch(seconds + WATCH_READ_GRACE))
        for event in stream:
            yield event["type"], event["raw_object"]

    def create(self, kind, body, namespace, api_version):
        self.calls.append(("create", kind, namespace, body["metadata"]["name"]))
        return self.k8s.create(self.resource(kind, api_version), body, namespace=namespace).to_dict()

    def patch(self, kind, name, namespace, body, api_version):
        """A JSON merge patch (kubectl patch --type=merge): null removes a key, a list is replaced whole."""
        self.calls.append(("patch", kind, namespace, name))
        return self.k8s.patch(self.resource(kind, api_version), body, name=name, namespace=namespace,
                              content_type="application/merge-patch+json").to_dict()

    def delete(self, kind, name, namespace, api_version, propagation=None):
        """``propagation``: Background or Foreground deletes what the object owns (a Job's pods,
        which batch/v1 orphans by default)."""
        self.calls.append(("delete", kind, namespace, name))
        body = {"propagationPolicy": propagation} if propagation else None
        return self.k8s.delete(self.resource(kind, api_version), name=name, namespace=namespace, body=body)

    def newest_pod(self, namespace, label_selector):
        """The most recently created pod with these labels (a Job's latest attempt), or None."""
        pods, _unused = self.list("Pod", namespace, api_version="v1", label_selector=label_selector)
        return newest(pods)

    def pod_log(self, name, namespace, container=None, tail_lines=None):
        """A pod's log as text (kubectl logs)."""
        from kubernetes.client import CoreV1Api

        self.calls.append(("log", "Pod", namespace, name))
        params = {"container": container} if container else {}
        if tail_lines:
            params["tail_lines"] = tail_lines
        return CoreV1Api(self.k8s.client.client).read_namespaced_pod_log(name, namespace, **params)

    def events(self, kind, name, namespace, last=5):
        """The last messages of the events about one object, oldest first."""
        items, _unused = self.list("Event", namespace, api_version="v1",
                                   field_selector="involvedObject.kind=%s,involvedObject.name=%s" % (kind, name))
        items.sort(key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or (e.get("metadata") or {}).get("creationTimestamp") or "")
        return ["%s %s: %s" % (e.get("type", ""), e.get("reason", ""), e.get("message", "")) for e in items][-last:]

    def pods_not_ready(self, namespace, label_selector):
        """Names and phases of the pods of a release that are not Running and Ready."""
        items, _unused = self.list("Pod", namespace, api_version="v1", label_selector=label_selector)
        not_ready = []
        for pod in items:
            status = pod.get("status") or {}
            ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
            if status.get("phase") not in ("Running", "Succeeded") or (status.get("phase") == "Running" and not ready):
                not_ready.append("%s (%s)" % (pod["metadata"]["name"], status.get("phase", "Unknown")))
        return not_ready


def log_tail(client, name, namespace, lines=5):
    """A pod's last ``lines`` lines joined by " | ", or "" when its node cannot give them (the pod
    is gone, or its kubelet serves no logs): a log is a hint beside an answer, never the answer."""
    try:
        text = client.pod_log(name, namespace, tail_lines=lines) or ""
    except ApiException:
        return ""
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())


def newest(objects):
    """The most recently created of the objects (a Job's latest pod), or None."""
    return max(objects, key=lambda o: o["metadata"].get("creationTimestamp") or "") if objects else None
