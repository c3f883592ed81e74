# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The logic of the module fluidops.accel.chart_crds: a chart's CRDs applied server-side, each only when
its manifest changed since the last apply."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json

try:
    import yaml
except ImportError:  # a dependency of kubernetes, which AnsibleK8SModule checks
    yaml = None

CRD_API = "apiextensions.k8s.io/v1"
SHA_ANNOTATION = "fluidops.io/manifest-sha256"
GENERATION_ANNOTATION = "fluidops.io/applied-generation"


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
