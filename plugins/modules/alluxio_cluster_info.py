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

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.cluster_info import execute_module, master_url_needs_rest
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module


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


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
