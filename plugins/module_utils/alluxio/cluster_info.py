# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The logic of the module fluidops.accel.alluxio_cluster_info: an Alluxio master's report read through its
REST API or fsadmin in its pod."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible.module_utils.urls import open_url

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.report import ReportError, client_cache_metrics, parse_fsadmin_report, parse_master_info
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.client import ApiException

try:
    from kubernetes.client import CoreV1Api
    from kubernetes.stream import stream
except ImportError:  # reported by AnsibleK8SModule's dependency check, before these are used
    pass


def master_url_needs_rest(params):
    """A rule between two options that an argument spec cannot state."""
    if params["master_url"] and params["source"] != "rest":
        return ["master_url=%s is only read with source=rest, not source=%s" % (params["master_url"], params["source"])]
    return []


def proxy_get(core, namespace, target, path):
    """GET through the API server's proxy to a service or pod ("services/x:19999" or "pods/x:49999")."""
    kind, name = target.split("/", 1)
    call = core.connect_get_namespaced_service_proxy_with_path if kind == "services" else core.connect_get_namespaced_pod_proxy_with_path
    return call(name, namespace, path.lstrip("/"), _preload_content=False).data.decode("utf-8")


def direct_get(url, path):
    """GET from an Alluxio web server's own address; a failure names the address."""
    address = url.rstrip("/") + "/" + path.lstrip("/")
    try:
        return open_url(address, timeout=30).read().decode("utf-8")
    except Exception as exc:  # urllib's and Ansible's errors: each says what failed
        raise ReportError("cannot read %s: %s" % (address, exc)) from exc


def read_cluster(module, core):
    params = module.params
    master = "%s-master-0" % params["release"]
    if params["source"] == "rest":
        if params["master_url"]:
            target = params["master_url"].rstrip("/")
            text = direct_get(target, "api/v1/master/info")
        else:
            target = "services/%s:%d" % (master, params["master_web_port"])
            text = proxy_get(core, params["namespace"], target, "api/v1/master/info")
        try:
            return parse_master_info(json.loads(text)), "GET %s/api/v1/master/info" % target
        except ValueError as exc:
            raise ReportError("%s did not return JSON: %s" % (target, exc)) from exc
    output = stream(core.connect_get_namespaced_pod_exec, master, params["namespace"], container="alluxio-master",
                    command=["alluxio", "fsadmin", "report"], stderr=True, stdin=False, stdout=True, tty=False)
    return parse_fsadmin_report(output), "alluxio fsadmin report in %s" % master


def read_client_cache(module, core):
    params = module.params
    if params["fuse_urls"]:
        texts = [direct_get(url, "metrics/json/") for url in params["fuse_urls"]]
    else:
        pods = core.list_namespaced_pod(params["namespace"], label_selector="release=%s,role=alluxio-fuse" % params["release"]).items
        texts = [proxy_get(core, params["namespace"], "pods/%s:%d" % (pod.metadata.name, params["fuse_web_port"]), "metrics/json/")
                 for pod in pods]
    documents = [json.loads(text) for text in texts]
    return client_cache_metrics(documents), len(documents)


def execute_module(module, client):
    try:
        core = CoreV1Api(client.k8s.client.client)
        report, source = read_cluster(module, core)
        result = dict(changed=False, source=source, **report)
        if module.params["client_cache"]:
            result["client_cache"], result["fuse_pods"] = read_client_cache(module, core)
        module.exit_json(**result)
    except ApiException as exc:
        module.fail_json(msg="Cannot read Alluxio release %s in %s (%s): the API server answered %s %s%s" % (
            module.params["release"], module.params["namespace"], module.params["source"], exc.status, exc.reason,
            (": " + exc.body.decode("utf-8", "replace")[:300] if isinstance(exc.body, bytes) else (": " + str(exc.body)[:300] if exc.body else ""))))
    except ReportError as exc:
        module.fail_json(msg="Alluxio release %s in %s: %s" % (module.params["release"], module.params["namespace"], exc))
