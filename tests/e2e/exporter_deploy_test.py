#!/usr/bin/python3
"""What ships with `anygpu exporter` under deploy/ is valid for the tools that consume it.

- Prometheus rules: `promtool check rules`, and `promtool test rules` with the unit tests.
- Grafana dashboard: JSON with unique panel ids, vendor/instance variables, and every panel
  query valid PromQL (checked by promtool as a recording rule) over anygpu's metric names.
- systemd unit: `systemd-analyze verify`, the hardening directives, and an exposure score of
  at most 2.0 from `systemd-analyze security --offline`. The binary run with the unit's
  credentials (a transient uid, its groups, exactly its capabilities, no new privileges;
  setpriv) reads the running kernel's log through /dev/kmsg, in `anygpu health` and in the
  exporter's anygpu_health_source_up; the same uid without CAP_SYSLOG is refused where
  kernel.dmesg_restrict=1.
- Kubernetes: a DaemonSet with a read-only root file system, CAP_SYSLOG as its one capability
  (uid 0 only for it), /sys read-only from the host and Prometheus scrape annotations that match
  the port the exporter is told to listen on. Podman (runc) runs the binary with the
  container's securityContext: it reads the kernel log through syslog(2), also when /dev/kmsg
  is mounted (the device cgroup refuses it), and is refused without SYSLOG.

usage: exporter_deploy_test.py ANYGPU DEPLOY_DIR
"""

import grp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import Exporter, check, get, parse_samples, require_tool  # noqa: E402

METRICS = {
    "anygpu_gpu_utilization_ratio", "anygpu_gpu_memory_used_bytes",
    "anygpu_gpu_memory_total_bytes", "anygpu_gpu_temperature_celsius", "anygpu_gpu_power_watts",
    "anygpu_gpu_energy_joules_total", "anygpu_gpu_clock_hertz", "anygpu_gpu_info",
    "anygpu_sample_age_seconds", "anygpu_backend_up", "anygpu_gpu_sensor_temperature_celsius",
    "anygpu_gpu_health", "anygpu_health_findings", "anygpu_health_age_seconds",
    "anygpu_health_window_seconds", "anygpu_health_source_up",
}


def run(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"{' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def metric_names(expr):
    return {m for m in re.findall(r"\b(anygpu_[a-z_]+)\b", expr)}


def test_rules(deploy, work):
    promtool = require_tool("promtool")
    prom = os.path.join(deploy, "prometheus")
    run([promtool, "check", "rules", "anygpu-rules.yml"], cwd=prom)
    out = run([promtool, "test", "rules", "anygpu-rules.test.yml"], cwd=prom)
    check("SUCCESS" in out, f"promtool test rules: {out}")
    with open(os.path.join(prom, "anygpu-rules.yml")) as f:
        rules = yaml.safe_load(f)
    alerts = {r["alert"]: r for g in rules["groups"] for r in g["rules"] if "alert" in r}
    check(set(alerts) >= {"AnyGPUAMDTemperatureHigh", "AnyGPUMemoryAlmostFull",
                          "AnyGPUSamplesStale", "AnyGPUBackendDown"}, f"alerts: {set(alerts)}")
    check('vendor="amd"' in alerts["AnyGPUAMDTemperatureHigh"]["expr"], "AMD rule not by vendor")
    check(set(alerts) >= {"AnyGPUDeviceCritical", "AnyGPUCriticalFinding", "AnyGPUWarningFinding",
                          "AnyGPUHealthStale", "AnyGPUDeviceHealthUnknown",
                          "AnyGPUHealthSourceDown"}, f"health alerts: {set(alerts)}")
    check("anygpu_gpu_health == 3" in alerts["AnyGPUDeviceHealthUnknown"]["expr"],
          "no alert on unknown health")
    for name, r in alerts.items():
        check(metric_names(r["expr"]) <= METRICS, f"{name} uses unknown metrics")
        check("severity" in r.get("labels", {}), f"{name} has no severity")
    # A broken rule file must be caught by the same check (the check can fail).
    broken = os.path.join(work, "broken.yml")
    with open(broken, "w") as f:
        f.write("groups:\n- name: x\n  rules:\n  - alert: X\n    expr: anygpu_backend_up ==\n")
    r = subprocess.run([promtool, "check", "rules", broken], capture_output=True)
    check(r.returncode != 0, "promtool accepted a broken rule")


def test_dashboard(deploy, work):
    with open(os.path.join(deploy, "grafana", "anygpu-dashboard.json")) as f:
        dash = json.load(f)
    for key in ("title", "uid", "panels", "templating", "schemaVersion"):
        check(key in dash, f"dashboard without {key}")
    variables = {v["name"]: v for v in dash["templating"]["list"]}
    check({"datasource", "vendor", "instance"} <= set(variables), f"variables: {set(variables)}")
    check("vendor" in variables["vendor"]["definition"], "vendor variable query")
    # Grafana's VariableOption: text and value are required, selected optional
    # (grafana/grafana@1d1cbb373112782cdc9fc25901926b5c2458a2b4
    # packages/grafana-schema/src/schema/dashboard/v2alpha0/dashboard.schema.cue).
    for name, v in variables.items():
        if "current" in v or v["type"] == "datasource":
            cur = v.get("current", {})
            check(isinstance(cur.get("text"), (str, list)) and isinstance(cur.get("value"), (str, list)),
                  f"variable {name}: current needs text and value, has {cur}")
            check(set(cur) <= {"selected", "text", "value"}, f"variable {name}: current {cur}")
    ids = [p["id"] for p in dash["panels"]]
    check(len(ids) == len(set(ids)), "duplicate panel ids")
    exprs, used = [], set()
    for p in dash["panels"]:
        check(p.get("targets"), f"panel {p['title']} has no query")
        check({"x", "y", "w", "h"} <= set(p["gridPos"]), f"panel {p['title']} gridPos")
        for t in p["targets"]:
            e = t["expr"]
            check("$vendor" in e and "$instance" in e, f"{p['title']}: ignores the variables")
            names = metric_names(e)
            check(names and names <= METRICS, f"{p['title']}: metrics {names}")
            used |= names
            for k, v in {"$vendor": ".*", "$instance": ".*", "$__rate_interval": "1m",
                         "$__range": "5m"}.items():
                e = e.replace(k, v)
            exprs.append(e)
    for m in ("anygpu_gpu_utilization_ratio", "anygpu_gpu_memory_used_bytes",
              "anygpu_gpu_temperature_celsius", "anygpu_gpu_power_watts",
              "anygpu_gpu_energy_joules_total", "anygpu_gpu_clock_hertz",
              "anygpu_sample_age_seconds", "anygpu_backend_up", "anygpu_gpu_info"):
        check(m in used, f"no panel shows {m}")
    rules = {"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query:{i}", "expr": e} for i, e in enumerate(exprs)]}]}
    path = os.path.join(work, "dashboard-queries.yml")
    with open(path, "w") as f:
        yaml.safe_dump(rules, f)
    run([require_tool("promtool"), "check", "rules", path])


def test_systemd(binary, deploy, work):
    analyze = require_tool("systemd-analyze")
    src = os.path.join(deploy, "systemd", "anygpu-exporter.service")
    # systemd repeats keys (DeviceAllow=): read them all.
    values = {}
    section = None
    with open(src) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                section = line.strip("[]")
                continue
            k, _, v = line.partition("=")
            values.setdefault((section, k), []).append(v)

    def one(key):
        return values.get(("Service", key), [None])[-1]

    want = {"DynamicUser": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
            "PrivateTmp": "yes", "NoNewPrivileges": "yes", "CapabilityBoundingSet": "CAP_SYSLOG",
            "AmbientCapabilities": "CAP_SYSLOG", "ProtectKernelLogs": "no",
            "RestrictAddressFamilies": "AF_INET AF_INET6 AF_UNIX",
            "MemoryDenyWriteExecute": "yes", "ReadOnlyPaths": "/sys", "DevicePolicy": "closed"}
    for k, v in want.items():
        check(one(k) == v, f"{k}={one(k)!r}, expected {v!r}")
    check("video render" == one("SupplementaryGroups"), "SupplementaryGroups")
    check("@system-service" in values[("Service", "SystemCallFilter")], "SystemCallFilter")
    allowed = " ".join(values[("Service", "DeviceAllow")])
    for dev in ("char-drm", "/dev/kfd", "char-nvidia-frontend"):
        check(dev in allowed, f"DeviceAllow lacks {dev}")
    check("/dev/kmsg r" in values[("Service", "DeviceAllow")], "DeviceAllow lacks /dev/kmsg r")
    exec_start = one("ExecStart")
    check(exec_start.split()[1:3] == ["exporter", "--listen"] and "127.0.0.1:" in exec_start,
          f"ExecStart: {exec_start}")

    # The install writes ExecStart beneath its prefix; verify resolves it: the binary under test.
    unit = os.path.join(work, "anygpu-exporter.service")
    with open(src) as f, open(unit, "w") as out:
        out.write(f.read().replace("@ANYGPU_BINDIR@/anygpu", os.path.abspath(binary)))
    out = subprocess.run([analyze, "verify", "--man=no", unit], capture_output=True, text=True)
    check(out.returncode == 0 and "anygpu-exporter.service" not in out.stderr,
          f"systemd-analyze verify:\n{out.stdout}{out.stderr}")
    sec = subprocess.run([analyze, "security", "--offline=yes", "--threshold=20", unit],
                         capture_output=True, text=True)
    score = re.search(r"Overall exposure level for \S+: ([0-9.]+)", sec.stdout)
    check(sec.returncode == 0 and score, f"systemd-analyze security:\n{sec.stdout}{sec.stderr}")
    print(f"systemd exposure level: {score.group(1)}")
    # The binary accepts the unit's command line (the flags exist and parse).
    args = exec_start.split()[1:] + ["--help"]
    run([binary, *args])
    run_as_the_unit(binary, values)


def kernel_log_source(binary, wrapper):
    """The kernel-log source of `anygpu health` on this machine, run through `wrapper`."""
    r = subprocess.run([*wrapper, binary, "--json", "--no-libs", "health"], capture_output=True,
                       text=True, timeout=60)
    check(r.returncode == 0, f"{wrapper} health: {r.returncode} {r.stderr}")
    (log,) = [s for s in json.loads(r.stdout)["sources"] if s["source"] == "kernel-log"]
    return log


def run_as_the_unit(binary, values):
    """The unit's credentials through setpriv: a DynamicUser-range uid, its supplementary groups
    (those this machine has), exactly its capabilities (bounding, inheritable, ambient), no new
    privileges. Not emulated: the unit's namespaces, seccomp filter and device policy."""
    check(os.geteuid() == 0, "running as the unit's user needs root (setpriv --reuid)")
    setpriv = require_tool("setpriv")
    caps = ",".join("+" + c.lower().removeprefix("cap_")
                    for c in values[("Service", "AmbientCapabilities")][-1].split())
    gids = []
    for name in values[("Service", "SupplementaryGroups")][-1].split():
        try:
            gids.append(str(grp.getgrnam(name).gr_gid))
        except KeyError:
            print(f"note: group {name} does not exist here; run without it")
    uid = "61234"  # systemd's DynamicUser range is 61184-65519
    base = [setpriv, f"--reuid={uid}", f"--regid={uid}", f"--groups={','.join(gids) or uid}",
            "--no-new-privs"]
    unit = base + [f"--bounding-set=-all,{caps}", f"--inh-caps=-all,{caps}",
                   f"--ambient-caps=-all,{caps}", "--"]
    bare = base + ["--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", "--"]
    log = kernel_log_source(binary, unit)
    check(log["read"] and log.get("detail") == "/dev/kmsg", f"as the unit: {log}")
    with open("/proc/sys/kernel/dmesg_restrict") as f:
        restricted = f.read().strip() == "1"
    log = kernel_log_source(binary, bare)
    if restricted:
        check(not log["read"] and log["reason"] == "permission-denied",
              f"without CAP_SYSLOG, dmesg_restrict=1: {log}")
    else:
        print("note: kernel.dmesg_restrict=0 here: the log is readable without CAP_SYSLOG too")
    # The exporter as the unit serves the kernel log as read.
    exporter = Exporter(binary, ["--no-libs"], ["--health-interval", "1"], wrapper=unit)
    try:
        samples = parse_samples(get(exporter.port)[2].decode())
        up = [v for (n, ls), v in samples.items()
              if n == "anygpu_health_source_up" and ("source", "kernel-log") in ls]
        check(up == [1.0], f"the exporter as the unit: kernel-log source {up}")
    finally:
        check(exporter.terminate() == 0, "the exporter as the unit: exit status")
    print(f"as the unit (uid {uid}, groups {gids}, {caps}): the kernel log is read via /dev/kmsg")


def test_kubernetes(deploy):
    with open(os.path.join(deploy, "kubernetes", "anygpu-exporter.yaml")) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    kinds = {d["kind"]: d for d in docs}
    check("DaemonSet" in kinds, f"kinds: {list(kinds)}")
    ds = kinds["DaemonSet"]
    check(ds["apiVersion"] == "apps/v1", "apiVersion")
    spec = ds["spec"]
    tmpl = spec["template"]
    check(spec["selector"]["matchLabels"].items() <= tmpl["metadata"]["labels"].items(),
          "selector does not match the pod labels")
    pod = tmpl["spec"]
    check(not pod.get("hostNetwork") and not pod.get("hostPID") and not pod.get("hostIPC"),
          "host namespaces")
    check(pod.get("automountServiceAccountToken") is False, "service account token mounted")
    psc = pod["securityContext"]
    check(psc.get("runAsNonRoot") is True and psc.get("runAsUser", 0) != 0, "runs as root")
    check(psc.get("seccompProfile", {}).get("type") == "RuntimeDefault", "seccomp")
    (c,) = pod["containers"]
    sc = c["securityContext"]
    check(sc.get("readOnlyRootFilesystem") is True, "readOnlyRootFilesystem")
    check(sc.get("allowPrivilegeEscalation") is False, "allowPrivilegeEscalation")
    check(sc.get("privileged", False) is False, "privileged")
    check(sc.get("capabilities", {}).get("drop") == ["ALL"], "capabilities not dropped")
    # One capability, for the kernel log; uid 0 only so that Kubernetes makes it effective.
    check(sc.get("capabilities", {}).get("add") == ["SYSLOG"], "capabilities: SYSLOG alone")
    check(sc.get("runAsUser", psc.get("runAsUser")) in (0, 65534), "runAsUser")
    check("limits" in c.get("resources", {}), "no resource limits")
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    vols = {v["name"]: v for v in pod["volumes"]}
    sys_vol = [n for n, v in vols.items() if v.get("hostPath", {}).get("path") == "/sys"]
    check(len(sys_vol) == 1 and mounts[sys_vol[0]].get("readOnly") is True,
          "/sys must come from the host, read-only")
    for n, v in vols.items():
        if "hostPath" in v:
            check(mounts[n].get("readOnly") is True, f"hostPath {n} writable")
            # The device cgroup refuses a mounted /dev/kmsg: it would only mislead.
            check(v["hostPath"]["path"] != "/dev/kmsg", "hostPath /dev/kmsg")
    args = c["args"]
    check(args[0] == "exporter", f"args: {args}")
    listen = args[args.index("--listen") + 1]
    port = int(listen.rpartition(":")[2])
    # The pod's own IP from the downward API, never every interface.
    env = {e["name"]: e for e in c.get("env", [])}
    check(listen.startswith("$(POD_IP):") and
          env.get("POD_IP", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
          == "status.podIP", f"--listen {listen}: expected $(POD_IP) from status.podIP")
    np = kinds.get("NetworkPolicy")
    check(np is not None and np["apiVersion"] == "networking.k8s.io/v1", "no NetworkPolicy")
    check(np["metadata"]["namespace"] == ds["metadata"]["namespace"], "NetworkPolicy namespace")
    check(np["spec"]["podSelector"]["matchLabels"].items() <= tmpl["metadata"]["labels"].items(),
          "NetworkPolicy does not select the exporter's pods")
    check(np["spec"]["policyTypes"] == ["Ingress"], "NetworkPolicy policyTypes")
    rules = np["spec"]["ingress"]
    check(all(r.get("from") for r in rules), "NetworkPolicy admits every source")
    check({p["port"] for r in rules for p in r["ports"]} == {port},
          "NetworkPolicy port differs from --listen")
    ports = {p["containerPort"] for p in c["ports"]}
    ann = tmpl["metadata"]["annotations"]
    check(ann.get("prometheus.io/scrape") == "true", "scrape annotation")
    check(int(ann.get("prometheus.io/port", 0)) == port and port in ports,
          f"port mismatch: listen {listen}, annotation {ann.get('prometheus.io/port')}, "
          f"containerPort {ports}")
    check(ann.get("prometheus.io/path") == "/metrics", "path annotation")
    for probe in ("livenessProbe", "readinessProbe"):
        check(c[probe]["httpGet"]["path"] in ("/healthz", "/metrics"), probe)
    tolerations = pod.get("tolerations", [])
    check(any(t.get("operator") == "Exists" for t in tolerations), "no toleration for GPU taints")
    return sc, psc


def podman_source(binary, rootfs_image, flags):
    r = subprocess.run(["podman", "run", "--rm", *flags, "-v", "/sys:/sys:ro", "-v", "/usr:/usr:ro",
                        "-v", f"{os.path.abspath(binary)}:/anygpu:ro", rootfs_image,
                        "/anygpu", "--json", "--no-libs", "health"],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, f"podman run {flags}: {r.returncode} {r.stderr}")
    (log,) = [s for s in json.loads(r.stdout)["sources"] if s["source"] == "kernel-log"]
    return log


def run_as_the_daemonset(binary, sc, psc, work):
    """The container's securityContext under Podman with runc (as cdi_podman_test.sh sets it up):
    the uid, the dropped and added capabilities, a read-only root, no new privileges, the node's
    /sys read-only. Podman's default seccomp profile (containers/common) stands in for the
    cluster's RuntimeDefault. The binary and its C library come from this machine's /usr."""
    require_tool("podman")
    busybox = require_tool("busybox")
    conf = os.path.join(work, "containers.conf")
    with open(conf, "w") as f:
        f.write('[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]\n[engine]\nruntime = "runc"\n')
    os.environ["CONTAINERS_CONF"] = conf
    rootfs = os.path.join(work, "rootfs")
    for d in ("bin", "usr", "sys", "proc", "dev", "tmp"):
        os.makedirs(os.path.join(rootfs, d))
    shutil.copy(busybox, os.path.join(rootfs, "bin/busybox"))
    os.symlink("usr/lib", os.path.join(rootfs, "lib"))
    os.symlink("usr/lib64", os.path.join(rootfs, "lib64"))
    image = "localhost/anygpu-test-daemonset"
    tar = os.path.join(work, "rootfs.tar")
    run(["tar", "-C", rootfs, "-cf", tar, "."])
    run(["podman", "import", "-q", tar, image])
    uid = sc.get("runAsUser", psc.get("runAsUser"))
    gid = sc.get("runAsGroup", psc.get("runAsGroup", 0))
    flags = [f"--user={uid}:{gid}", "--cap-drop=all", "--read-only",
             "--security-opt=no-new-privileges"]
    added = [f"--cap-add={c}" for c in sc["capabilities"].get("add", [])]
    log = podman_source(binary, image, flags + added)
    check(log["read"] and log.get("detail") == "syslog(2)", f"the DaemonSet's container: {log}")
    # A mounted /dev/kmsg is refused by the device cgroup whatever the capabilities: syslog(2).
    log = podman_source(binary, image, flags + added + ["-v", "/dev/kmsg:/dev/kmsg:ro"])
    check(log["read"] and log.get("detail") == "syslog(2)", f"with /dev/kmsg mounted: {log}")
    with open("/proc/sys/kernel/dmesg_restrict") as f:
        if f.read().strip() == "1":
            log = podman_source(binary, image, flags)
            check(not log["read"] and log["reason"] == "permission-denied",
                  f"without SYSLOG: {log}")
    subprocess.run(["podman", "rmi", "-f", image], capture_output=True)
    print(f"the DaemonSet's securityContext (uid {uid}, {added}): the kernel log via syslog(2)")


def main():
    binary, deploy = sys.argv[1:3]
    work = tempfile.mkdtemp(prefix="anygpu-exporter-deploy-")
    try:
        test_rules(deploy, work)
        test_dashboard(deploy, work)
        test_systemd(binary, deploy, work)
        sc, psc = test_kubernetes(deploy)
        run_as_the_daemonset(binary, sc, psc, work)
    finally:
        shutil.rmtree(work)
    print("PASS: deploy")


if __name__ == "__main__":
    main()
