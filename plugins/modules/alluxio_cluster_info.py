#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: alluxio_cluster_info
short_description: Read capacity, workers and client-cache metrics of a standalone Alluxio release
version_added: 1.0.0
author: fluidops contributors (!UNKNOWN)
description:
  - For the standalone Alluxio chart (seed 004, role C(fluidops.accel.alluxio)). Returns the capacity and used
    bytes in all and per tier, and the live and lost workers.
  - With I(source=rest) it reads the master's REST API C(/api/v1/master/info) through the Kubernetes API
    server's service proxy, or straight from I(master_url); with I(source=fsadmin) it runs
    C(alluxio fsadmin report) in the master pod and parses the summary.
  - With I(client_cache), it also reads the metrics of every FUSE pod (C(/metrics/json/) on the FUSE web port,
    which needs C(alluxio.fuse.web.enabled=true)) and returns the client page cache's hit rate and the bytes
    read from the cache and from outside it.
  - It only reads, so check mode changes nothing.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  release:
    description: The Helm release name; the master pod is C(<release>-master-0).
    type: str
    default: alluxio
  namespace:
    description: The release namespace.
    type: str
    default: alluxio
  source:
    description: Where to read the cluster state.
    type: str
    choices: [rest, fsadmin]
    default: rest
  master_web_port:
    description: The master's web port (the chart's C(master.ports.web)).
    type: int
    default: 19999
  master_url:
    description:
      - The master's web address, such as C(http://10.0.0.5:19999), read directly instead of through the API
        server's proxy (which cannot reach masters on the host network behind some proxies' rules, or from
        outside the cluster).
      - Only with I(source=rest).
    type: str
  fuse_urls:
    description:
      - With I(client_cache), the FUSE processes' web addresses (C(http://<node>:49999)) to read directly
        instead of the FUSE pods through the API server's proxy.
    type: list
    elements: str
    default: []
  client_cache:
    description: Also read the client page cache metrics from the FUSE pods.
    type: bool
    default: false
  fuse_web_port:
    description: The FUSE process's web port.
    type: int
    default: 49999
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Read the standalone Alluxio cluster
  fluidops.accel.alluxio_cluster_info:
    namespace: alluxio
    client_cache: true
  register: alluxio

- name: Fail when a worker is lost
  ansible.builtin.assert:
    that: alluxio.lost_workers == 0
    fail_msg: "{{ alluxio.lost_workers }} Alluxio workers are lost"

- name: The same from the CLI in the master pod
  fluidops.accel.alluxio_cluster_info:
    source: fsadmin
"""

RETURN = r"""
capacity:
  description: Bytes over all workers and tiers.
  returned: success
  type: dict
  sample: {total: 429496729600, used: 154264487854, free: 275232241746}
tiers:
  description: Total and used bytes per tier alias.
  returned: success
  type: dict
  sample: {MEM: {total: 429496729600, used: 154264487854}}
live_workers:
  description: Workers the master sees.
  returned: success
  type: int
lost_workers:
  description: Workers the master lost.
  returned: success
  type: int
version:
  description: Alluxio version of the master.
  returned: success
  type: str
client_cache:
  description: The FUSE client page cache over all FUSE pods (hit_rate 0-100, bytes_read_cache, bytes_requested_external);
    null when no FUSE process reports one (the cache is off).
  returned: when I(client_cache)
  type: dict
source:
  description: Where the numbers come from.
  returned: always
  type: str
"""

import copy
import json

from ansible.module_utils.urls import open_url
from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.report import ReportError, client_cache_metrics, parse_fsadmin_report, parse_master_info
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module

try:
    from kubernetes.client import CoreV1Api
    from kubernetes.client.rest import ApiException
    from kubernetes.stream import stream
except ImportError:  # reported by AnsibleK8SModule's dependency check
    # A stand-in that nothing raises: its `except` does not catch ReportError.
    class ApiException(Exception):
        pass


def master_url_needs_rest(params):
    """A rule between two options that an argument spec cannot state."""
    if params["master_url"] and params["source"] != "rest":
        return ["master_url=%s is only read with source=rest, not source=%s" % (params["master_url"], params["source"])]
    return []


def spec():
    argument_spec = copy.deepcopy(AUTH_ARG_SPEC)
    argument_spec.update(
        release=dict(type="str", default="alluxio"),
        namespace=dict(type="str", default="alluxio"),
        source=dict(type="str", choices=["rest", "fsadmin"], default="rest"),
        master_web_port=dict(type="int", default=19999),
        master_url=dict(type="str"),
        fuse_urls=dict(type="list", elements="str", default=[]),
        client_cache=dict(type="bool", default=False),
        fuse_web_port=dict(type="int", default=49999),
    )
    return ModuleSpec(argument_spec, check=master_url_needs_rest)


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


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
