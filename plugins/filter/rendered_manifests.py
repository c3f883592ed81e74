# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Manifests as YAML text: render mode's redact_secrets, manifest_filename, to_manifest_yaml and manifest_file, and
manifests_from_yaml, which reads what `helm template` prints."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

import yaml

REDACTED = "REDACTED"
# Keys whose values are credentials wherever they appear (Dataset options, chart properties).
_SENSITIVE_KEY = re.compile(r"(?i)(access.?key(.?id)?|secret.?key|key.?secret|password|token)$")


def _redact(node):
    if isinstance(node, dict):
        return {key: REDACTED if isinstance(value, str) and _SENSITIVE_KEY.search(str(key)) else _redact(value)
                for key, value in node.items()}
    if isinstance(node, list):
        return [_redact(item) for item in node]
    return node


def redact_secrets(manifest):
    """A copy of a manifest or values map with Secret data and credential-like values replaced."""
    # _redact builds new containers (no deepcopy: it breaks Ansible's lazy templating of nested values).
    result = _redact(manifest)
    if isinstance(result, dict) and result.get("kind") == "Secret":
        for field in ("data", "stringData"):
            if isinstance(result.get(field), dict):
                result[field] = {key: REDACTED for key in result[field]}
    return result


def manifest_filename(manifest):
    """``<kind>_<namespace>_<name>.yaml``, or ``<kind>_<name>.yaml`` for a cluster-scoped object
    (Kubernetes names never hold ``_``, so no two objects share a file)."""
    metadata = manifest.get("metadata", {})
    parts = [manifest["kind"].lower(), metadata.get("namespace"), metadata["name"]]
    return "_".join(part for part in parts if part) + ".yaml"


class _ManifestDumper(yaml.SafeDumper):
    """Block style, keys in the order given, and no &anchors for values that happen to be shared."""

    def ignore_aliases(self, data):
        return True

    def increase_indent(self, flow=False, indentless=False):
        # Indent list items under their key, as yamllint and most style guides expect.
        return super(_ManifestDumper, self).increase_indent(flow, False)


def to_manifest_yaml(data):
    """A YAML document as people write manifests: block style, keys in order, no anchors."""
    # Through JSON first: plain types only (templating returns str and dict subclasses).
    plain = json.loads(json.dumps(data))
    return yaml.dump(plain, Dumper=_ManifestDumper, default_flow_style=False, sort_keys=False, indent=2,
                     allow_unicode=True, explicit_start=True)


def manifests_from_yaml(text):
    """The objects of a stream of YAML documents, such as `helm template`'s output; empty documents
    (a template that renders nothing) are left out."""
    # PyYAML's safe loader keeps a repeated key's last value without a word, as Helm and the API
    # server read manifests (sigs.k8s.io/yaml). Ansible's loader warns instead, on every run, about
    # a chart's own output no inventory can change (Fluid 1.0.8 gives one container imagePullPolicy twice).
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return [document for document in yaml.load_all(text, Loader=loader) if document]


def manifest_file(manifest):
    """The file render mode writes an object to, as fluidops.accel.render_files takes it."""
    return {"name": manifest_filename(manifest), "content": to_manifest_yaml(manifest)}


class FilterModule(object):
    def filters(self):
        return {"redact_secrets": redact_secrets, "manifest_filename": manifest_filename, "to_manifest_yaml": to_manifest_yaml,
                "manifest_file": manifest_file, "manifests_from_yaml": manifests_from_yaml}
