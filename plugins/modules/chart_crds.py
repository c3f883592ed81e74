#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: chart_crds
short_description: Apply a chart's CustomResourceDefinitions server-side, skipping those a fingerprint shows unchanged
version_added: 1.1.0
author: fluidops contributors (!UNKNOWN)
description:
  - Applies each CRD of the files in I(src) server-side (C(kubectl apply --server-side)), as Helm
    does not upgrade the CRDs of a release.
  - Each applied CRD carries the SHA-256 of its manifest in the annotation C(fluidops.io/manifest-sha256)
    and the generation the API server gave it then in C(fluidops.io/applied-generation).
  - Lists the CRDs' metadata once; a CRD whose fingerprint matches its manifest and whose generation
    has not moved since (nobody changed its spec) is left alone. So a run where nothing changed makes
    one API request, instead of sending every CRD (Fluid's are about 1 MB) through Ansible and the API server.
  - In check mode it lists and reports which CRDs it would apply.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  src:
    description: YAML files holding the CRDs (several documents each allowed), applied in this order.
    type: list
    elements: path
    required: true
  field_manager:
    description: The field manager of the server-side apply.
    type: str
    default: fluidops
  force_conflicts:
    description: Take over fields another manager set (C(kubectl apply --server-side --force-conflicts)).
    type: bool
    default: true
requirements:
  - python >= 3.9
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Apply the Fluid chart's CRDs
  fluidops.accel.chart_crds:
    src: "{{ query('ansible.builtin.fileglob', chart_dir ~ '/crds/*.yaml') | sort }}"
"""

RETURN = r"""
applied:
  description: The CRDs applied (in check mode, those that would be), in the order of I(src).
  returned: always
  type: list
  elements: str
  sample: [datasets.data.fluid.io]
unchanged:
  description: The CRDs whose fingerprint showed them unchanged.
  returned: always
  type: list
  elements: str
api_calls:
  description: API requests the module made (one list, then an apply and a patch for each CRD applied).
  returned: always
  type: int
reconnects:
  description: Always 0; the module does not watch.
  returned: always
  type: int
"""

import copy
import hashlib
import json

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

from ansible_collections.fluidops.accel.plugins.module_utils.k8s.runner import ModuleSpec, run_module

try:
    import yaml
except ImportError:  # a dependency of kubernetes, which AnsibleK8SModule checks
    yaml = None

CRD_API = "apiextensions.k8s.io/v1"
SHA_ANNOTATION = "fluidops.io/manifest-sha256"
GENERATION_ANNOTATION = "fluidops.io/applied-generation"


def spec():
    argument_spec = copy.deepcopy(AUTH_ARG_SPEC)
    argument_spec.update(src=dict(type="list", elements="path", required=True),
                         field_manager=dict(type="str", default="fluidops"), force_conflicts=dict(type="bool", default=True))
    return ModuleSpec(argument_spec)


def read_crds(paths):
    """The CRDs of the files, in order; (crds, problems) where a problem names a file and a
    document that is not a CustomResourceDefinition."""
    crds, problems = [], []
    for path in paths:
        try:
            with open(path) as handle:
                documents = list(yaml.safe_load_all(handle))
        except (OSError, yaml.YAMLError) as error:
            problems.append("%s: %s" % (path, error))
            continue
        for index, document in enumerate(documents):
            if not document:
                continue
            named = isinstance(document, dict) and (document.get("metadata") or {}).get("name")
            if not named or document.get("kind") != "CustomResourceDefinition":
                kind = document.get("kind") if isinstance(document, dict) else document.__class__.__name__
                problems.append("%s, document %d: kind %s, not a named CustomResourceDefinition" % (path, index + 1, kind))
                continue
            crds.append(document)
    return crds, problems


def fingerprint(crd):
    """The SHA-256 of the manifest, keys sorted: the same manifest gives the same one."""
    return hashlib.sha256(json.dumps(crd, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def unchanged(wanted_sha, current):
    """Whether a CRD as listed (its metadata) was applied from this manifest and its spec has not
    moved since: the fingerprint matches and the generation is the one recorded at the apply."""
    if current is None:
        return False
    annotations = (current.get("metadata") or {}).get("annotations") or {}
    return (annotations.get(SHA_ANNOTATION) == wanted_sha
            and annotations.get(GENERATION_ANNOTATION) == str((current.get("metadata") or {}).get("generation")))


def execute_module(module, client):
    params = module.params
    crds, problems = read_crds(params["src"])
    if problems:
        module.fail_json(msg="src: " + "; ".join(problems), applied=[], unchanged=[], **client.counts())
    listed = {item["metadata"]["name"]: item for item in client.list_metadata("CustomResourceDefinition", CRD_API)}
    applied, kept = [], []
    for crd in crds:
        name, sha = crd["metadata"]["name"], fingerprint(crd)
        if unchanged(sha, listed.get(name)):
            kept.append(name)
            continue
        applied.append(name)
        if module.check_mode:
            continue
        # The manifest as it is, as kubectl apply --server-side sends it; the fingerprint follows in
        # a merge patch, as the generation is known only once the API server took the spec, and
        # so that no apply of the bare manifest (an older fluidops, kubectl) takes it away again.
        result = client.server_side_apply("CustomResourceDefinition", crd, CRD_API,
                                          field_manager=params["field_manager"], force_conflicts=params["force_conflicts"])
        client.patch("CustomResourceDefinition", name, None, {"metadata": {"annotations": {
            SHA_ANNOTATION: sha, GENERATION_ANNOTATION: str(result["metadata"]["generation"])}}}, api_version=CRD_API)
    module.exit_json(changed=bool(applied), applied=applied, unchanged=kept, **client.counts())


def main():
    run_module(spec(), execute_module)


if __name__ == "__main__":
    main()
