#!/usr/bin/env python3
"""Writes kubeconform's JSON schemas, offline, from the real API definitions.

    schemas.py OUT_DIR SWAGGER_JSON [CRD_YAML ...]

Kubernetes built-ins come from the OpenAPI v2 document of the pinned k8s.io/kubernetes module
(api/openapi-spec/swagger.json); custom resources from the openAPIV3Schema of each CRD (Fluid's,
the MPIJob's). Files land at OUT_DIR/<group>/<kind>_<version>.json (the core group is "v1"), the
layout of kubeconform's `-schema-location 'OUT_DIR/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'`.

The schemas are strict like the apiserver's strict field validation (kubectl's default): an
object that lists its properties takes no others, unless it preserves unknown fields. Like the
apiserver, they take null for any field.
"""

import json
import os
import sys

import yaml

DEFINITIONS = "_definitions.json"
INT_OR_STRING = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
QUANTITY = {"oneOf": [{"type": "string"}, {"type": "number"}]}


def strict(schema):
    """Closes every object schema that lists properties, in place, and rewrites the
    Kubernetes extensions that JSON Schema does not know. Walks schemas only: a map of
    property names is not a schema (JSONSchemaProps has properties named oneOf, nullable...)."""
    if not isinstance(schema, dict):
        return schema
    if schema.get("x-kubernetes-int-or-string"):
        for key in ("type", "anyOf"):
            schema.pop(key, None)
        schema.update(INT_OR_STRING)
    if "properties" in schema and "additionalProperties" not in schema and not schema.get("x-kubernetes-preserve-unknown-fields"):
        schema["additionalProperties"] = False
    for key in ("properties", "patternProperties", "definitions"):
        for child in (schema.get(key) or {}).values():
            strict(child)
    for child in (schema.get("properties") or {}).values():
        allow_null(child)
    for key in ("items", "additionalProperties", "not"):
        strict(schema.get(key))
    for key in ("allOf", "anyOf", "oneOf"):
        for child in schema.get(key) or []:
            strict(child)
    return schema


def allow_null(schema):
    """An optional field may be null: the apiserver reads null as unset (built-ins) or prunes it
    (custom resources), and charts render empty values as null."""
    if "$ref" in schema:
        ref = schema.pop("$ref")
        schema["anyOf"] = [{"$ref": ref}, {"type": "null"}]
    elif isinstance(schema.get("type"), str):
        schema["type"] = [schema["type"], "null"]
    elif "oneOf" in schema and {"type": "null"} not in schema["oneOf"]:
        schema["oneOf"] = schema["oneOf"] + [{"type": "null"}]


def rewrite_refs(node, prefix):
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            node["$ref"] = prefix + node["$ref"].split("#", 1)[1]
        for value in node.values():
            rewrite_refs(value, prefix)
    elif isinstance(node, list):
        for item in node:
            rewrite_refs(item, prefix)
    return node


def write(path, schema):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(schema, handle, indent=1, sort_keys=True)


def file_for(out, group, version, kind):
    return os.path.join(out, group or version, "%s_%s.json" % (kind.lower(), version))


def builtins(out, swagger_path):
    with open(swagger_path, encoding="utf-8") as handle:
        definitions = json.load(handle)["definitions"]
    definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = dict(INT_OR_STRING)
    definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"] = dict(QUANTITY)
    for definition in definitions.values():
        strict(definition)
    write(os.path.join(out, DEFINITIONS), {"definitions": rewrite_refs(json.loads(json.dumps(definitions)), "#")})
    count = 0
    for definition in definitions.values():
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            schema = rewrite_refs(json.loads(json.dumps(definition)), "../%s#" % DEFINITIONS)
            write(file_for(out, gvk["group"], gvk["version"], gvk["kind"]), schema)
            count += 1
    return count


def custom_resources(out, crd_paths):
    count = 0
    for path in crd_paths:
        with open(path, encoding="utf-8") as handle:
            for crd in yaml.safe_load_all(handle):
                if not crd or crd.get("kind") != "CustomResourceDefinition":
                    continue
                spec = crd["spec"]
                for version in spec["versions"]:
                    schema = (version.get("schema") or {}).get("openAPIV3Schema")
                    if schema:
                        write(file_for(out, spec["group"], version["name"], spec["names"]["kind"]), strict(schema))
                        count += 1
    return count


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    out, swagger, crds = argv[1], argv[2], argv[3:]
    print("%d built-in and %d custom resource schemas in %s" % (builtins(out, swagger), custom_resources(out, crds), out))


if __name__ == "__main__":
    main(sys.argv)
