#!/usr/bin/python3
"""`anygpu ps` names pods through the kubelet's pod-resources API, served here by a real gRPC
server (Debian python3-grpcio) on a unix socket inside a fixture root, with the messages
protoc compiles from the vendored upstream api.proto. A server that is absent, hangs, talks
garbage or fails the call is a warning, and the listing is otherwise unchanged.

The exporter's `--processes` scan asks the same server: with the mock NVML of
tests/mocklibs/nvml_health.cc giving the pod's processes memory, `anygpu_process_memory_bytes`
carries the pod's namespace and name beside its uid.

usage: ps_pod_resources_test.py ANYGPU HOSTS_DIR PROTO_DIR MOCK_NVML_HEALTH_SO"""
import copy
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent import futures

try:
    import grpc
except ImportError:
    sys.exit("FAIL: needs Debian's python3-grpcio (make deps installs it)")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import Exporter, get, parse_samples  # noqa: E402

BIN, HOSTS, PROTO_DIR, MOCK_NVML = sys.argv[1:5]
NVML_PATH = "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"
SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock"
# h100-8x: /dev/nvidiaN and the UUIDs its /proc/driver/nvidia reports.
GPU0 = ("0000:18:00.0", "/dev/nvidia0", "GPU-445d2601-9853-a7c7-c87c-e2ff0e3d2f08")
GPU1 = ("0000:2a:00.0", "/dev/nvidia1", "GPU-c1c08ae2-a2ac-f0bd-7f8c-83b81aeb216e")
GPU2 = ("0000:3a:00.0", "/dev/nvidia2", "GPU-8be09f7c-ae13-3913-4055-65df6f5d9946")
UID_TRAIN = "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d"
UID_INFER = "11111111-2222-3333-4444-555555555555"
UID_PRIV = "99999999-8888-7777-6666-555555555555"

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def pod_cgroup(uid):
    u = uid.replace("-", "_")
    return (f"0::/kubepods.slice/kubepods-pod{u}.slice/"
            f"cri-containerd-{'ab' * 32}.scope\n")


def add_process(root, pid, comm, nodes, cgroup):
    base = os.path.join(root, "proc", str(pid))
    os.makedirs(os.path.join(base, "fd"))
    os.makedirs(os.path.join(base, "fdinfo"))
    with open(os.path.join(base, "comm"), "w") as f:
        f.write(comm + "\n")
    with open(os.path.join(base, "status"), "w") as f:
        f.write(f"Name:\t{comm}\nUid:\t0\t0\t0\t0\n")
    with open(os.path.join(base, "cgroup"), "w") as f:
        f.write(cgroup)
    for fd, node in enumerate(nodes, start=3):
        os.symlink(node, os.path.join(base, "fd", str(fd)))
        with open(os.path.join(base, "fdinfo", str(fd)), "w") as f:
            f.write("pos:\t0\nflags:\t02\n")


def make_root(tmp):
    root = os.path.join(tmp, "h")
    shutil.copytree(os.path.join(HOSTS, "h100-8x"), root, symlinks=True)
    shutil.rmtree(os.path.join(root, "proc", "self"), ignore_errors=True)
    os.makedirs(os.path.join(root, "etc"), exist_ok=True)
    with open(os.path.join(root, "etc", "passwd"), "w") as f:
        f.write("root:x:0:0::/root:/bin/sh\n")
    add_process(root, 100, "trainer", [GPU0[1], GPU1[1]], pod_cgroup(UID_TRAIN))
    add_process(root, 101, "trainer-aux", [], pod_cgroup(UID_TRAIN))  # holds nothing: unlisted
    add_process(root, 102, "dataloader", [GPU1[1]], pod_cgroup(UID_TRAIN))
    add_process(root, 200, "server", [GPU2[1]], pod_cgroup(UID_INFER))
    # A privileged pod's process holding a GPU no pod was allocated: never named.
    add_process(root, 300, "monitor", ["/dev/nvidia3"], pod_cgroup(UID_PRIV))
    add_process(root, 400, "python3", [GPU0[1]], "0::/user.slice/session-1.scope\n")
    os.makedirs(os.path.dirname(root + SOCKET), exist_ok=True)
    return root


def compile_proto(tmp):
    out = os.path.join(tmp, "gen")
    os.makedirs(out)
    if not shutil.which("protoc"):
        sys.exit("FAIL: needs protoc (Debian's protobuf-compiler; make deps installs it)")
    subprocess.run(["protoc", f"-I{PROTO_DIR}", f"--python_out={out}", "api.proto"],
                   check=True)
    sys.path.insert(0, out)
    import api_pb2  # noqa: E402  (generated just above)
    return api_pb2


def list_response(pb):
    resp = pb.ListPodResourcesResponse()
    train = resp.pod_resources.add(name="train-0", namespace="ml")
    c = train.containers.add(name="trainer")
    c.devices.add(resource_name="nvidia.com/gpu", device_ids=[GPU0[2], GPU1[2]])
    c.cpu_ids.extend([2, 3])
    infer = resp.pod_resources.add(name="infer-7f9c", namespace="serving")
    infer.containers.add(name="server").devices.add(
        resource_name="nvidia.com/gpu", device_ids=[GPU2[2] + "::1"])  # a time-sliced replica
    idle = resp.pod_resources.add(name="web", namespace="default")
    idle.containers.add(name="nginx")
    # The privileged pod requested no device: the kubelet lists it without one.
    resp.pod_resources.add(name="dcgm-exporter-x", namespace="monitoring").containers.add(
        name="exporter")
    return resp


def serve(path, handler):
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        "v1.PodResourcesLister", {"List": handler}),))
    server.add_insecure_port("unix:" + path)
    server.start()
    return server


def run_ps(root, *extra):
    start = time.monotonic()
    r = subprocess.run([BIN, "--root", root, "--no-libs", "ps", "--json", *extra],
                       capture_output=True, text=True, timeout=30)
    return r, time.monotonic() - start


def by_pid(r):
    return {p["pid"]: p for p in json.loads(r.stdout)["processes"]}


def without_names(doc):
    doc = copy.deepcopy(doc)
    for p in doc.values():
        if "pod" in p:
            p["pod"] = {"uid": p["pod"]["uid"]}
    return doc


def exporter_memory(root, tmp):
    """One scrape of `exporter --processes` with the mock NVML listing the pods' processes:
    {(bus id, pod uid, namespace, pod): bytes}."""
    lib = os.path.join(root, NVML_PATH)
    os.makedirs(os.path.dirname(lib), exist_ok=True)
    shutil.copyfile(MOCK_NVML, lib)
    facts = os.path.join(tmp, "nvml-health")
    with open(facts, "w") as f:  # GPU index, pid, bytes
        f.write("0 process 100 1048576\n1 process 100 1048576\n1 process 102 2097152\n"
                "2 process 200 4194304\n")
    exporter = Exporter(BIN, ["--root", root], ["--no-health", "--processes"],
                        env=dict(os.environ, MOCK_NVML_HEALTH_FILE=facts))
    try:
        samples = parse_samples(get(exporter.port)[2].decode())
    finally:
        exporter.terminate()
        os.unlink(lib)
    out = {}
    for (name, labels), value in samples.items():
        if name == "anygpu_process_memory_bytes":
            ls = dict(labels)
            out[(ls.get("pci_bus_id"), ls.get("pod_uid"), ls.get("namespace"),
                 ls.get("pod"))] = value
    return out


def raw_server(path, behaviour):
    """A unix socket that is not a gRPC server: it never accepts, accepts and stays silent,
    or answers with garbage."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(4)
    held = []

    def loop():
        while True:
            try:
                conn, _ = s.accept()
            except OSError:
                return
            held.append(conn)
            if behaviour == "garbage":
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" + bytes(range(256)) * 4)
            elif behaviour == "huge-frame":
                conn.sendall(b"\xff\xff\xff\x04\x00\x00\x00\x00\x00")  # 16 MiB SETTINGS

    if behaviour != "backlog":
        threading.Thread(target=loop, daemon=True).start()
    return s, held


def main():
    tmp = tempfile.mkdtemp(prefix="ps-podres.")
    try:
        root = make_root(tmp)
        path = root + SOCKET
        pb = compile_proto(tmp)

        # Baseline without a server: what every failing case must still print.
        r, _ = run_ps(root)
        check(r.returncode == 0, f"absent socket: exit 0 (got {r.returncode}: {r.stderr})")
        check(SOCKET in r.stderr and "warning" in r.stderr,
              f"absent socket: a warning naming it ({r.stderr.strip()})")
        baseline = by_pid(r)
        check(all("name" not in p.get("pod", {}) for p in baseline.values()),
              "absent socket: no pod named")
        check(sorted(baseline) == [100, 102, 200, 300, 400],
              f"the fixture's holders are listed ({sorted(baseline)})")

        calls = []

        def ok_list(request, context):
            calls.append(dict(context.invocation_metadata()))
            return list_response(pb)

        server = serve(path, grpc.unary_unary_rpc_method_handler(
            ok_list, request_deserializer=pb.ListPodResourcesRequest.FromString,
            response_serializer=pb.ListPodResourcesResponse.SerializeToString))
        try:
            r, _ = run_ps(root)
            # A second call on a fresh connection: the server's HPACK state starts anew.
            r2, _ = run_ps(root)
            text = subprocess.run([BIN, "--root", root, "--no-libs", "ps"], capture_output=True,
                                  text=True, timeout=30).stdout
            exported = exporter_memory(root, tmp)
        finally:
            server.stop(None)
        check(r.returncode == 0 and r.stderr == "", f"served: exit 0, quiet ({r.stderr})")
        got = by_pid(r)
        check(got[100]["pod"] == {"uid": UID_TRAIN, "name": "train-0", "namespace": "ml"},
              f"trainer on both of the pod's GPUs is named ({got[100].get('pod')})")
        check(got[102]["pod"] == got[100]["pod"], "a second process of that pod is named")
        check(got[200]["pod"] == {"uid": UID_INFER, "name": "infer-7f9c",
                                  "namespace": "serving"},
              f"a time-sliced replica id names its GPU ({got[200].get('pod')})")
        check(got[300]["pod"] == {"uid": UID_PRIV},
              f"a pod holding an unallocated GPU is not named ({got[300].get('pod')})")
        check("pod" not in got[400], "a host process on a pod's GPU is not put in the pod")
        check(without_names(got) == baseline, "otherwise the listing is unchanged")
        check(r2.stderr == "" and by_pid(r2) == got,
              f"a second call gives the same answer ({r2.stderr.strip()})")
        check(calls and calls[0].get("content-type", "application/grpc").startswith(
            "application/grpc"), "the server saw a gRPC call")

        check("pod ml/train-0" in text and f"pod {UID_PRIV}" in text,
              "the text table shows namespace/name, else the uid")
        check(exported == {(GPU0[0], UID_TRAIN, "ml", "train-0"): 1048576.0,
                           (GPU1[0], UID_TRAIN, "ml", "train-0"): 3145728.0,
                           (GPU2[0], UID_INFER, "serving", "infer-7f9c"): 4194304.0},
              f"exporter --processes: the pods' memory by namespace and name ({exported})")

        # The call fails: an error status, an unknown method, garbage in a well-formed reply.
        def denied(request, context):
            context.abort(grpc.StatusCode.PERMISSION_DENIED, "not for you %")

        def garbage(request, context):
            return b"\x0a\xff\xff\xff\xff\x0f"  # field 1, a length past the message

        for label, handler in [
                ("error status", grpc.unary_unary_rpc_method_handler(
                    denied, request_deserializer=pb.ListPodResourcesRequest.FromString)),
                ("malformed message", grpc.unary_unary_rpc_method_handler(
                    garbage, request_deserializer=pb.ListPodResourcesRequest.FromString,
                    response_serializer=lambda b: b))]:
            server = serve(path, handler)
            try:
                r, _ = run_ps(root)
            finally:
                server.stop(None)
            check(r.returncode == 0 and SOCKET in r.stderr,
                  f"{label}: exit 0 and a warning ({r.stderr.strip()})")
            check(by_pid(r) == baseline, f"{label}: the listing is the baseline")
            if label == "error status":
                check("gRPC status 7" in r.stderr and "not for you %" in r.stderr,
                      "error status: the status and message are reported")
        os.unlink(path) if os.path.exists(path) else None

        # Not gRPC at all, or never answering: bounded by --pod-resources-timeout.
        for behaviour in ["garbage", "huge-frame", "silent", "backlog"]:
            s, held = raw_server(path, behaviour)
            try:
                r, took = run_ps(root, "--pod-resources-timeout", "0.5")
            finally:
                s.close()
                for c in held:
                    c.close()
                os.unlink(path)
            check(r.returncode == 0 and SOCKET in r.stderr,
                  f"{behaviour}: exit 0 and a warning ({r.stderr.strip()})")
            check(by_pid(r) == baseline, f"{behaviour}: the listing is the baseline")
            check(took < 5, f"{behaviour}: bounded by the deadline ({took:.2f} s)")

        # A socket path elsewhere, and "" not to ask.
        alt = root + "/run/podres.sock"
        os.makedirs(os.path.dirname(alt), exist_ok=True)
        server = serve(alt, grpc.unary_unary_rpc_method_handler(
            ok_list, request_deserializer=pb.ListPodResourcesRequest.FromString,
            response_serializer=pb.ListPodResourcesResponse.SerializeToString))
        try:
            r, _ = run_ps(root, "--pod-resources", "/run/podres.sock")
            r_off, _ = run_ps(root, "--pod-resources", "")
        finally:
            server.stop(None)
        check(by_pid(r)[100]["pod"].get("name") == "train-0", "--pod-resources SOCKET is used")
        check(r_off.stderr == "" and by_pid(r_off) == baseline, '--pod-resources "" asks nothing')
        # A regular file where the socket should be.
        with open(path, "w") as f:
            f.write("not a socket")
        r, _ = run_ps(root)
        check("not a unix socket" in r.stderr and by_pid(r) == baseline,
              f"a regular file: a warning ({r.stderr.strip()})")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)


main()
