#!/usr/bin/python3
"""Every manifest anygpu writes, validated against the upstream schemas in tests/schemas.

`k8s job` (Job, PyTorchJob), `k8s labels`, `k8s taint` (the Node it patches), deploy/kubernetes
and `cdi generate` on every fixture host; then broken copies of them, which the same schemas must
refuse (a schema that accepts anything would pass the first half alone).

  manifest_schema_test.py ANYGPU SOURCE_DIR
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

import jsonschema
import yaml

ANYGPU, SOURCE = sys.argv[1], sys.argv[2]
SCHEMAS = os.path.join(SOURCE, "tests", "schemas")
HOSTS = os.path.join(SOURCE, "tests", "hosts")
failures = []


def load(name):
    with open(os.path.join(SCHEMAS, name), encoding="utf-8") as f:
        return json.load(f)


def kubernetes_validators():
    document = load("kubernetes-1.35.json")
    validators = {}
    for key, name in document["roots"].items():
        schema = {"definitions": document["definitions"],
                  "allOf": [{"$ref": f"#/definitions/{name}"}]}
        validators[tuple(key.split(" "))] = jsonschema.Draft7Validator(schema)
    pytorchjob = load("kubeflow-pytorchjob-v1.json")
    validators[("kubeflow.org/v1", "PyTorchJob")] = jsonschema.Draft7Validator(pytorchjob)
    return validators


def cdi_validator():
    # schema.json refers to defs.json by name: one document, so no resolver is needed.
    schema = json.loads(json.dumps(load("cdi/schema.json")).replace('"defs.json#/', '"#/'))
    schema["definitions"] = load("cdi/defs.json")["definitions"]
    return jsonschema.Draft7Validator(schema)


KUBERNETES = kubernetes_validators()
CDI = cdi_validator()
LABELS = jsonschema.Draft7Validator(load("k8s-labels.json"))


def label_maps(node):
    """Every labels / matchLabels / nodeSelector map in a manifest."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("labels", "matchLabels", "nodeSelector") and isinstance(value, dict):
                yield value
            yield from label_maps(value)
    elif isinstance(node, list):
        for value in node:
            yield from label_maps(value)


def errors(manifest, schema_of=None):
    """Why the API server would refuse `manifest` (as the kind `schema_of` names, by default
    its own); empty when it conforms."""
    if not isinstance(manifest, dict):
        return ["not a mapping"]
    validator = KUBERNETES.get(schema_of or (manifest.get("apiVersion"), manifest.get("kind")))
    if validator is None:
        return [f"no schema for {manifest.get('apiVersion')} {manifest.get('kind')}"]
    found = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
             for e in validator.iter_errors(manifest)]
    for labels in label_maps(manifest):
        found += [f"label: {e.message}" for e in LABELS.iter_errors(labels)]
    return found


def cdi_errors(spec):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in CDI.iter_errors(spec)]


def expect_valid(what, found):
    if found:
        failures.append(f"{what}: {found[:3]}")
    else:
        print(f"ok   {what}")


def expect_refused(what, found):
    if found:
        print(f"ok   {what} refused: {found[0][:120]}")
    else:
        failures.append(f"{what}: accepted, should have been refused")


def anygpu(*args, stdin=None):
    run = subprocess.run([ANYGPU, *args], capture_output=True, text=True, check=False, input=stdin)
    return run.returncode, run.stdout


def hosts_with_devices():
    for host in sorted(os.listdir(HOSTS)):
        path = os.path.join(HOSTS, host)
        if not os.path.isdir(path):
            continue
        code, out = anygpu("--root", path, "--json", "detect")
        if code == 0 and json.loads(out).get("devices"):
            yield host, path


def vendors(path):
    code, out = anygpu("--root", path, "--json", "detect")
    return sorted({d["vendor"] for d in json.loads(out)["devices"]})


def generated():
    """(what, manifest) for every generated manifest on every fixture host."""
    command = ["python", "train.py", "--config", "a: [1, 2]"]
    for host, path in hosts_with_devices():
        for nnodes in (1, 3):
            code, out = anygpu("--root", path, "k8s", "job", "--image", "registry.example/t:1",
                               "--gpus", "2", "--nnodes", str(nnodes), "--", *command)
            what = f"{host} k8s job --nnodes {nnodes}"
            if code != 0:
                failures.append(f"{what}: exit {code}")
                continue
            yield what, yaml.safe_load(out)


def node_labels():
    """(what, labels) of `k8s labels` on every fixture host: the labels NFD gives its Node."""
    for host, path in hosts_with_devices():
        for prefix in ([], ["--label-prefix", "example.com"]):
            code, out = anygpu("--root", path, "k8s", "labels", *prefix)
            labels = dict(line.split("=", 1) for line in out.splitlines()
                          if line and not line.startswith("#"))
            what = f"{host} k8s labels {' '.join(prefix)}".rstrip()
            if code != 0 or not labels:
                failures.append(f"{what}: exit {code}, {len(labels)} labels")
                continue
            yield what, labels


NODE = {"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "gpu01", "resourceVersion": "77"},
        "spec": {"taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule",
                             "timeAdded": "2025-01-01T00:00:00Z"},
                            {"key": "anygpu.io/unhealthy", "value": "xid", "effect": "NoSchedule"}]}}


def taint_patches():
    """(what, patch as a Node) of `k8s taint` on a copy of the 8xH100 fixture with an Xid 79 in
    its kernel log (adds the taint) and on a clean copy (removes it). The patch holds only the
    fields it changes, so it is checked as a Node with apiVersion and kind added."""
    with tempfile.TemporaryDirectory() as tmp:
        for what, log in (("Xid 79", "3,1,1000000,-;NVRM: Xid (PCI:0000:2a:00): 79, pid=1, x.\n"),
                          ("clean", "")):
            root = os.path.join(tmp, what.replace(" ", ""))
            shutil.copytree(os.path.join(HOSTS, "h100-8x"), root, symlinks=True)
            with open(os.path.join(root, "dev", "kmsg"), "w", encoding="utf-8") as f:
                f.write(log)
            node = dict(NODE, spec={"taints": NODE["spec"]["taints"][:1]}) if log else NODE
            code, out = anygpu("--root", root, "--no-libs", "k8s", "taint", "--node", "-",
                               stdin=json.dumps(node))
            if code != 0:
                failures.append(f"k8s taint ({what}): exit {code}")
                continue
            patch = json.loads(out)
            taints = patch.get("spec", {}).get("taints", [])
            ours = [t for t in taints if t["key"] == "anygpu.io/unhealthy"]
            if ours != ([{"key": "anygpu.io/unhealthy", "value": "xid", "effect": "NoSchedule"}]
                        if log else []) or taints[:1] != NODE["spec"]["taints"][:1]:
                failures.append(f"k8s taint ({what}): unexpected taints {taints}")
            yield f"k8s taint ({what})", dict(patch, apiVersion="v1", kind="Node")


def cdi_specs():
    for host, path in hosts_with_devices():
        for vendor in vendors(path):
            code, out = anygpu("--root", path, "cdi", "generate", "--vendor", vendor)
            if code != 0:
                failures.append(f"{host} cdi generate --vendor {vendor}: exit {code}")
                continue
            yield f"{host} cdi generate --vendor {vendor}", yaml.safe_load(out)


def deployed():
    directory = os.path.join(SOURCE, "deploy", "kubernetes")
    for name in sorted(os.listdir(directory)):
        if name.endswith((".yaml", ".yml")):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                for manifest in yaml.safe_load_all(f):
                    if manifest is not None:
                        yield f"deploy/kubernetes/{name} {manifest['kind']}", manifest


def pod_spec(manifest):
    if manifest["kind"] == "PyTorchJob":
        return manifest["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]
    return manifest["spec"]["template"]["spec"]


def broken_manifests(job, pytorchjob, daemonset):
    """(what, manifest) that Kubernetes or the training operator refuses."""
    def edit(base, what, change):
        manifest = copy.deepcopy(base)
        change(manifest)
        return what, manifest

    for base in (job, pytorchjob, daemonset):
        kind = base["kind"]
        yield edit(base, f"{kind} with a misspelt container field",
                   lambda m: pod_spec(m)["containers"][0].update(imagePullPolicyy="Always"))
        yield edit(base, f"{kind} without containers",
                   lambda m: pod_spec(m).pop("containers"))
        yield edit(base, f"{kind} with a container without a name",
                   lambda m: pod_spec(m)["containers"][0].pop("name"))
        yield edit(base, f"{kind} with args as one string",
                   lambda m: pod_spec(m)["containers"][0].update(args="python train.py"))
        yield edit(base, f"{kind} with a list as a resource limit",
                   lambda m: pod_spec(m)["containers"][0].update(
                       resources={"limits": {"nvidia.com/gpu": [1]}}))
        yield edit(base, f"{kind} with a label value with a space",
                   lambda m: m["metadata"].setdefault("labels", {}).update(a="two words"))
        yield edit(base, f"{kind} with a nodeSelector key of two slashes",
                   lambda m: pod_spec(m).update(nodeSelector={"a/b/c": "x"}))
        yield edit(base, f"{kind} with runAsUser as a string",
                   lambda m: pod_spec(m)["securityContext"].update(runAsUser="1001"))
    yield edit(job, "Job with backoffLimit as a word",
               lambda m: m["spec"].update(backoffLimit="six"))
    yield edit(pytorchjob, "PyTorchJob with replicas as a string",
               lambda m: m["spec"]["pytorchReplicaSpecs"]["Master"].update(replicas="1"))
    yield edit(pytorchjob, "PyTorchJob with nprocPerNode as a number",
               lambda m: m["spec"].update(nprocPerNode=8))
    yield edit(pytorchjob, "PyTorchJob with an unknown spec field",
               lambda m: m["spec"].update(nprocsPerNode="8"))
    yield edit(pytorchjob, "PyTorchJob without pytorchReplicaSpecs",
               lambda m: m["spec"].pop("pytorchReplicaSpecs"))
    yield edit(daemonset, "DaemonSet without a selector",
               lambda m: m["spec"].pop("selector"))
    yield edit(daemonset, "DaemonSet with a port number as a string",
               lambda m: pod_spec(m)["containers"][0]["ports"][0].update(containerPort="9400"))


def broken_cdi(spec):
    def edit(what, change):
        broken = copy.deepcopy(spec)
        change(broken)
        return what, broken

    yield edit("CDI spec without cdiVersion", lambda s: s.pop("cdiVersion"))
    yield edit("CDI spec without kind", lambda s: s.pop("kind"))
    yield edit("CDI spec with a device without a name", lambda s: s["devices"][0].pop("name"))
    yield edit("CDI spec with a device without containerEdits",
               lambda s: s["devices"][0].pop("containerEdits"))
    yield edit("CDI spec with a device node without a path",
               lambda s: s["devices"][0]["containerEdits"].update(deviceNodes=[{"type": "c"}]))
    yield edit("CDI spec with env as a mapping",
               lambda s: s["devices"][0]["containerEdits"].update(env={"A": "1"}))


def main():
    by_kind = {}
    for what, manifest in [*generated(), *deployed()]:
        expect_valid(what, errors(manifest))
        by_kind.setdefault(manifest["kind"], manifest)
    patches = list(taint_patches())
    for what, patch in patches:
        expect_valid(what, errors(patch))
    for what, change in (("a taint without effect", lambda t: t.pop("effect")),
                         ("a misspelt taint field", lambda t: t.update(efect="NoSchedule")),
                         ("a taint value as a number", lambda t: t.update(value=79))):
        broken = copy.deepcopy(patches[0][1]) if patches else {}
        if broken:
            change(broken["spec"]["taints"][-1])
            expect_refused(f"Node patch with {what}", errors(broken))
    for what, labels in node_labels():
        expect_valid(what, [e.message for e in LABELS.iter_errors(labels)])
    specs = list(cdi_specs())
    for what, spec in specs:
        expect_valid(what, cdi_errors(spec))
    if not {"Job", "PyTorchJob", "DaemonSet"} <= by_kind.keys() or not specs:
        failures.append(f"too little generated to break: {sorted(by_kind)}, {len(specs)} CDI")
    else:
        for what, manifest in broken_manifests(by_kind["Job"], by_kind["PyTorchJob"],
                                               by_kind["DaemonSet"]):
            expect_refused(what, errors(manifest))
        for kind, manifest in by_kind.items():
            key = (manifest["apiVersion"], kind)
            expect_refused(f"{kind} of another apiVersion",
                           errors(dict(manifest, apiVersion=key[0] + "beta9"), key))
            expect_refused(f"{kind} of another kind", errors(dict(manifest, kind="Pod"), key))
        for what, spec in broken_cdi(specs[0][1]):
            expect_refused(what, cdi_errors(spec))
        for labels in ({"bad key": "x"}, {"a": "-x"}, {"a": "x" * 64}, {"A.b/c": "x"},
                       {"x" * 254 + "/a": "x"}, {"a/" + "b" * 64: "x"}, {"a": 1}):
            expect_refused(f"labels {str(labels)[:40]}",
                           [e.message for e in LABELS.iter_errors(labels)])
        # The examples kube.go gives of valid keys and values: the patterns refuse no more.
        for labels in ({"MyName": "MyValue"}, {"my.name": "my_value"}, {"123-abc": "12345"},
                       {"example.com/MyName": ""}, {"a" * 63: "b" * 63}):
            expect_valid(f"labels {str(labels)[:40]}",
                         [e.message for e in LABELS.iter_errors(labels)])
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
