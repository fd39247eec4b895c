#!/usr/bin/python3
"""Cuts the upstream schemas down to what the manifest tests validate (see README.md).

  extract.py kubernetes OUT.json api_v1.json apis_batch_v1.json ...  (OpenAPI v3 documents)
  extract.py crd OUT.json kubeflow.org_pytorchjobs.yaml VERSION      (a CRD's openAPIV3Schema)

The result is a JSON Schema (draft 7) without descriptions. Objects that list their properties
get additionalProperties: false: the API server refuses unknown fields (kubectl's default
--validate=strict, and a CRD's structural schema) unless x-kubernetes-preserve-unknown-fields.
"""
import json
import sys

import yaml

# What the generated manifests and deploy/kubernetes hold, and the Node `k8s taint` patches.
KUBERNETES_ROOTS = [("v1", "Namespace"), ("v1", "Node"), ("batch/v1", "Job"),
                    ("apps/v1", "DaemonSet"), ("networking.k8s.io/v1", "NetworkPolicy")]
DROP = {"description", "default", "format", "discriminator", "nullable"}


def convert(node):
    if isinstance(node, list):
        return [convert(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in DROP or key.startswith("x-kubernetes-"):
            continue
        if key == "$ref":
            out[key] = value.replace("#/components/schemas/", "#/definitions/")
        elif key == "properties":
            out[key] = {name: convert(sub) for name, sub in value.items()}
        else:
            out[key] = convert(value)
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    if node.get("nullable"):
        out = {"anyOf": [{"type": "null"}, out]}
    elif ("properties" in node and "additionalProperties" not in node
          and not node.get("x-kubernetes-preserve-unknown-fields")):
        out["additionalProperties"] = False
    return out


def references(node, found):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if ref:
            found.add(ref.rsplit("/", 1)[1])
        for value in node.values():
            references(value, found)
    elif isinstance(node, list):
        for value in node:
            references(value, found)


def api_version(gvk):
    return gvk["version"] if not gvk["group"] else f'{gvk["group"]}/{gvk["version"]}'


def kubernetes(out_path, documents):
    schemas = {}
    for path in documents:
        with open(path, encoding="utf-8") as f:
            schemas.update(json.load(f)["components"]["schemas"])
    roots = {}
    for name, schema in schemas.items():
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            if (api_version(gvk), gvk["kind"]) in KUBERNETES_ROOTS:
                roots[f'{api_version(gvk)} {gvk["kind"]}'] = name
    missing = {f"{a} {k}" for a, k in KUBERNETES_ROOTS} - roots.keys()
    if missing:
        sys.exit(f"extract.py: not in the documents: {sorted(missing)}")
    needed, queue = set(), list(roots.values())
    while queue:
        name = queue.pop()
        if name in needed:
            continue
        needed.add(name)
        found = set()
        references(schemas[name], found)
        queue.extend(found - needed)
    definitions = {name: convert(schemas[name]) for name in sorted(needed)}
    # A root's apiVersion and kind are the ones its x-kubernetes-group-version-kind names.
    for key, name in roots.items():
        version, kind = key.split(" ")
        definitions[name]["properties"]["apiVersion"] = {"const": version}
        definitions[name]["properties"]["kind"] = {"const": kind}
        definitions[name]["required"] = sorted(set(definitions[name].get("required", []))
                                               | {"apiVersion", "kind"})
    write(out_path, {"$schema": "http://json-schema.org/draft-07/schema#", "roots": roots,
                     "definitions": definitions})


def crd(out_path, crd_path, version):
    with open(crd_path, encoding="utf-8") as f:
        document = yaml.safe_load(f)
    for served in document["spec"]["versions"]:
        if served["name"] == version:
            schema = convert(served["schema"]["openAPIV3Schema"])
            break
    else:
        sys.exit(f"extract.py: {crd_path} has no version {version}")
    group, kind = document["spec"]["group"], document["spec"]["names"]["kind"]
    schema["properties"]["apiVersion"] = {"const": f"{group}/{version}"}
    schema["properties"]["kind"] = {"const": kind}
    schema["required"] = sorted(set(schema.get("required", [])) | {"apiVersion", "kind"})
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    write(out_path, schema)


def write(path, schema):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(schema, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "kubernetes":
        kubernetes(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 5 and sys.argv[1] == "crd":
        crd(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
