#!/usr/bin/env python
"""Writes JSON schemas, offline, from the real API definitions: kubeconform's, and the subset the
collection ships for its own checks (plugins/plugin_utils/schema_check.py). Both come from the
same transformation (strict), so what kubeconform refuses in the render tests is what the
collection refuses before anything changes.

    schemas.py kubeconform OUT_DIR SWAGGER_JSON [CRD_YAML ...]
    schemas.py collection OUT_DIR --version kubernetes=V --version fluid=V --version mpi-operator=V \
        --version prometheus-operator=V SWAGGER_JSON CRD_YAML...

Kubernetes built-ins come from the OpenAPI v2 document of the pinned k8s.io/kubernetes module
(api/openapi-spec/swagger.json); custom resources from the openAPIV3Schema of each CRD (Fluid's,
the MPIJob's, the Prometheus Operator's ServiceMonitor). tools/kubeconform/sources.sh finds them.

kubeconform: files land at OUT_DIR/<group>/<kind>_<version>.json (the core group is "v1"), the
layout of kubeconform's `-schema-location 'OUT_DIR/{{ .Group }}/{{ .ResourceKind }}_{{ .ResourceAPIVersion }}.json'`,
the built-ins' definitions in OUT_DIR/_definitions.json.

collection: one file per kind of SHIPPED, OUT_DIR/<group>_<version>_<kind>.json (the core group
is "core"), self-contained (only the definitions that kind references, its $refs local), without
what validation does not read (descriptions, defaults, x-kubernetes-* annotations), keys sorted,
one key or value a line (no indent: small, and a new version shows as a readable diff); and
OUT_DIR/index.json: each kind's file, whether it is namespaced, the quantity pattern, and the
sources with their versions and sha256.

The schemas are strict like the apiserver's strict field validation (kubectl's default): an
object that lists its properties takes no others, unless it preserves unknown fields. Like the
apiserver, they take null for any field. A custom resource's metadata is the built-in ObjectMeta,
as the apiserver reads it (the CRDs say only "type: object").
"""

import argparse
import copy
import hashlib
import json
import os
import sys

import yaml

DEFINITIONS = "_definitions.json"
INT_OR_STRING = {"oneOf": [{"type": "string"}, {"type": "integer"}]}
# The grammar of a Kubernetes quantity (k8s.io/apimachinery/pkg/api/resource, ParseQuantity): the
# pattern controller-gen puts on every resource.Quantity field of a CRD, copied from Fluid 1.0.8's
# CRDs (grep 'pattern:' charts/fluid/fluid/crds), so built-in and custom resources agree on what a
# quantity is. The swagger says only "string". The apiserver also takes a JSON number for a
# built-in quantity (Quantity.UnmarshalJSON parses its text) and trims spaces around a string;
# the pattern does not, as for custom resources. custom_resources() checks the CRDs still carry it.
QUANTITY_PATTERN = r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$"
QUANTITY = {"oneOf": [{"type": "string", "pattern": QUANTITY_PATTERN}, {"type": "number"}]}
QUANTITY_DEFINITION = "io.k8s.apimachinery.pkg.api.resource.Quantity"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

# What the collection ships: (source, group, version, kind). A source names one --version.
SHIPPED = (
    ("kubernetes", "", "v1", "Namespace"),
    ("kubernetes", "", "v1", "Secret"),
    ("kubernetes", "", "v1", "PersistentVolume"),
    ("kubernetes", "", "v1", "PersistentVolumeClaim"),
    ("kubernetes", "", "v1", "Node"),
    ("kubernetes", "", "v1", "ConfigMap"),
    ("kubernetes", "", "v1", "Pod"),
    ("kubernetes", "batch", "v1", "Job"),
    # What the Fluid and Alluxio charts render (helm template), for the helm_chart role's check.
    ("kubernetes", "", "v1", "Service"),
    ("kubernetes", "", "v1", "ServiceAccount"),
    ("kubernetes", "apps", "v1", "Deployment"),
    ("kubernetes", "apps", "v1", "DaemonSet"),
    ("kubernetes", "apps", "v1", "StatefulSet"),
    ("kubernetes", "rbac.authorization.k8s.io", "v1", "ClusterRole"),
    ("kubernetes", "rbac.authorization.k8s.io", "v1", "ClusterRoleBinding"),
    ("kubernetes", "rbac.authorization.k8s.io", "v1", "Role"),
    ("kubernetes", "rbac.authorization.k8s.io", "v1", "RoleBinding"),
    ("kubernetes", "storage.k8s.io", "v1", "CSIDriver"),
    ("kubernetes", "admissionregistration.k8s.io", "v1", "MutatingWebhookConfiguration"),
    ("fluid", "data.fluid.io", "v1alpha1", "Dataset"),
    ("fluid", "data.fluid.io", "v1alpha1", "AlluxioRuntime"),
    ("fluid", "data.fluid.io", "v1alpha1", "JindoRuntime"),
    ("fluid", "data.fluid.io", "v1alpha1", "ThinRuntime"),
    ("fluid", "data.fluid.io", "v1alpha1", "ThinRuntimeProfile"),
    ("fluid", "data.fluid.io", "v1alpha1", "DataLoad"),
    ("mpi-operator", "kubeflow.org", "v2beta1", "MPIJob"),
    # The bundle's metrics objects, where the cluster has the Prometheus Operator's CRDs.
    ("prometheus-operator", "monitoring.coreos.com", "v1", "ServiceMonitor"),
)
# Schema keywords validation does not read: dropped from the shipped files to keep them small.
ANNOTATIONS = ("description", "default", "example", "externalDocs", "nullable")


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


def subschemas(schema):
    """The schemas directly inside a schema (not the maps of property names around them)."""
    if not isinstance(schema, dict):
        return
    for key in ("properties", "patternProperties", "definitions"):
        yield from (schema.get(key) or {}).values()
    for key in ("items", "additionalProperties", "not"):
        if isinstance(schema.get(key), dict):
            yield schema[key]
    for key in ("allOf", "anyOf", "oneOf"):
        yield from schema.get(key) or []


def compact(schema):
    """Drops, in place, what validation does not read: descriptions, defaults, examples and the
    x-kubernetes-* annotations (strict has already turned the ones that matter into JSON Schema)."""
    for key in [key for key in schema if key in ANNOTATIONS or key.startswith("x-kubernetes-")]:
        del schema[key]
    for child in subschemas(schema):
        compact(child)
    return schema


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


def refs(node):
    """The definition names a schema refers to, directly ("#/definitions/<name>")."""
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"].rsplit("/", 1)[1]
        for value in node.values():
            yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


def closure(definitions, schema):
    """The names of every definition the schema refers to, directly or through others."""
    found, todo = set(), [schema]
    while todo:
        for name in refs(todo.pop()):
            if name not in found:
                found.add(name)
                todo.append(definitions[name])
    return found


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def builtins(swagger_path):
    """({definition name: strict schema}, {(group, version, kind): (definition name, namespaced)}),
    the $refs as "#/definitions/<name>". A kind is namespaced when it is created under a
    namespace's path."""
    with open(swagger_path, encoding="utf-8") as handle:
        swagger = json.load(handle)
    definitions = swagger["definitions"]
    definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"] = copy.deepcopy(INT_OR_STRING)
    definitions[QUANTITY_DEFINITION] = copy.deepcopy(QUANTITY)
    for definition in definitions.values():
        strict(definition)
    namespaced = {}
    for path, operations in swagger["paths"].items():
        gvk = (operations.get("post") or {}).get("x-kubernetes-group-version-kind")
        if gvk:
            key = (gvk["group"], gvk["version"], gvk["kind"])
            namespaced[key] = namespaced.get(key, False) or "{namespace}" in path
    kinds = {}
    for name, definition in definitions.items():
        for gvk in definition.get("x-kubernetes-group-version-kind", []):
            key = (gvk["group"], gvk["version"], gvk["kind"])
            kinds[key] = (name, namespaced.get(key, False))
    return definitions, kinds


def custom_resources(crd_paths):
    """{(group, version, kind): (strict schema, namespaced, CRD path)}; the metadata of each is a
    $ref to the built-in ObjectMeta."""
    found, patterns = {}, set()
    for path in crd_paths:
        with open(path, encoding="utf-8") as handle:
            for crd in yaml.safe_load_all(handle):
                if not crd or crd.get("kind") != "CustomResourceDefinition":
                    continue
                spec = crd["spec"]
                for version in spec["versions"]:
                    schema = (version.get("schema") or {}).get("openAPIV3Schema")
                    if schema:
                        patterns.update(quantity_patterns(schema))
                        if "metadata" in schema.get("properties", {}):
                            schema["properties"]["metadata"] = {"$ref": "#/definitions/" + OBJECT_META}
                        found[(spec["group"], version["name"], spec["names"]["kind"])] = (strict(schema), spec["scope"] == "Namespaced", path)
    if crd_paths and QUANTITY_PATTERN not in patterns:
        sys.exit("no CRD carries QUANTITY_PATTERN on an int-or-string field any more; theirs: %s" % sorted(patterns))
    return found


def quantity_patterns(schema):
    """The patterns on the int-or-string fields of a CRD's schema (not yet strict)."""
    if schema.get("x-kubernetes-int-or-string") and "pattern" in schema:
        yield schema["pattern"]
    for child in subschemas(schema):
        yield from quantity_patterns(child)


def write(path, schema, **dump):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(schema, handle, sort_keys=True, **(dump or {"indent": 1}))
        handle.write("\n")


def kubeconform(out, swagger, crd_paths):
    definitions, kinds = builtins(swagger)
    write(os.path.join(out, DEFINITIONS), {"definitions": definitions})
    schemas = {key: definitions[name] for key, (name, _unused) in kinds.items()}
    schemas.update({key: schema for key, (schema, _unused, _unused) in custom_resources(crd_paths).items()})
    for (group, version, kind), schema in schemas.items():
        path = os.path.join(out, group or version, "%s_%s.json" % (kind.lower(), version))
        write(path, rewrite_refs(copy.deepcopy(schema), "../%s#" % DEFINITIONS))
    return "%d schemas in %s" % (len(schemas), out)


def shipped_file(group, version, kind):
    return "%s_%s_%s.json" % (group or "core", version, kind.lower())


def collection(out, swagger, crd_paths, versions, shipped=SHIPPED):
    """The files of the shipped kinds and index.json, and nothing else: files of kinds no longer shipped go."""
    definitions, kinds = builtins(swagger)
    crds = custom_resources(crd_paths)
    index = {"generator": "tools/kubeconform/schemas.py", "kinds": {}, "quantity_pattern": QUANTITY_PATTERN, "sources": {}}
    index["sources"]["kubernetes"] = {"version": versions["kubernetes"],
                                      "files": {"k8s.io/kubernetes/api/openapi-spec/swagger.json": sha256(swagger)}}
    written = ["index.json"]
    for source, group, version, kind in shipped:
        key = (group, version, kind)
        if source == "kubernetes":
            name, namespaced = kinds[key]
            schema, origin = copy.deepcopy(definitions[name]), "k8s.io/kubernetes/api/openapi-spec/swagger.json"
        else:
            if key not in crds:
                sys.exit("%s/%s %s: no CRD given defines it" % (group, version, kind))
            schema, namespaced, path = copy.deepcopy(crds[key][0]), crds[key][1], crds[key][2]
            origin = os.path.basename(path)
            index["sources"].setdefault(source, {"version": versions[source], "files": {}})["files"][origin] = sha256(path)
        schema["definitions"] = {name: copy.deepcopy(definitions[name]) for name in sorted(closure(definitions, schema))}
        if not schema["definitions"]:
            del schema["definitions"]
        file_name = shipped_file(*key)
        write(os.path.join(out, file_name), compact(schema), indent=0, separators=(",", ":"))
        written.append(file_name)
        api_version = "%s/%s" % (group, version) if group else version
        index["kinds"]["%s/%s" % (api_version, kind)] = {"file": file_name, "namespaced": namespaced,
                                                         "source": "%s %s %s" % (source, versions[source], origin)}
    write(os.path.join(out, "index.json"), index)
    for stale in sorted(set(os.listdir(out)) - set(written)):
        if stale.endswith(".json"):
            os.remove(os.path.join(out, stale))
    size = sum(os.path.getsize(os.path.join(out, name)) for name in written)
    return "%d kinds in %s, %d bytes" % (len(shipped), out, size)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for command in ("kubeconform", "collection"):
        sub = commands.add_parser(command)
        sub.add_argument("out")
        sub.add_argument("swagger")
        sub.add_argument("crds", nargs="*")
    commands.choices["collection"].add_argument("--version", action="append", default=[], metavar="SOURCE=VERSION",
                                                help="the version of each source of SHIPPED (kubernetes, fluid, mpi-operator, prometheus-operator)")
    args = parser.parse_args(argv[1:])
    if args.command == "kubeconform":
        print(kubeconform(args.out, args.swagger, args.crds))
        return
    versions = dict(item.split("=", 1) for item in args.version)
    missing = sorted({source for source, _unused, _unused, _unused in SHIPPED} - set(versions))
    if missing:
        parser.error("--version SOURCE=VERSION missing for %s" % ", ".join(missing))
    print(collection(args.out, args.swagger, args.crds, versions))


if __name__ == "__main__":
    main(sys.argv)
