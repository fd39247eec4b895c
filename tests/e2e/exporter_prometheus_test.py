#!/usr/bin/python3
"""A real Prometheus scrapes `anygpu exporter` on a copy of the 8×MI300X fixture every second.

Its query API must return every GPU's series with the fixture's values, follow a value changed
in the copy's sysfs, answer every Grafana dashboard query, and `promtool check metrics` must
accept what the exporter serves. SIGTERM ends the exporter with status 0.

usage: exporter_prometheus_test.py ANYGPU FIXTURE_DIR DASHBOARD_JSON
"""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exporter_common import (Exporter, check, copy_fixture, fail, get, parse_samples,  # noqa: E402
                             require_tool, temp_dir)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def busy_files(root):
    """{pci_bus_id: path of gpu_busy_percent} for every device of the copy."""
    out = {}
    devices = os.path.join(root, "sys/bus/pci/devices")
    for name in sorted(os.listdir(devices)):
        path = os.path.join(devices, name, "gpu_busy_percent")
        if os.path.exists(path):
            out[name] = os.path.realpath(path)
    return out


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


class Prometheus:
    def __init__(self, work, target):
        self.port = free_port()
        config = os.path.join(work, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: anygpu
    static_configs:
      - targets: ["{target}"]
""")
        self.log = open(os.path.join(work, "prometheus.log"), "w")
        self.proc = subprocess.Popen(
            [require_tool("prometheus"), f"--config.file={config}",
             f"--storage.tsdb.path={os.path.join(work, 'data')}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self._wait_ready(60)

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            check(self.proc.poll() is None, "prometheus exited; see prometheus.log")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/-/ready", timeout=2):
                    return
            except OSError:
                time.sleep(0.2)
        fail("prometheus not ready")

    def query(self, promql):
        url = (f"http://127.0.0.1:{self.port}/api/v1/query?" +
               urllib.parse.urlencode({"query": promql}))
        with urllib.request.urlopen(url, timeout=10) as r:
            doc = json.load(r)
        check(doc.get("status") == "success", f"query {promql!r} failed: {doc}")
        return doc["data"]["result"]

    def wait_for(self, promql, predicate, what, timeout=30):
        deadline = time.monotonic() + timeout
        result = []
        while time.monotonic() < deadline:
            result = self.query(promql)
            if predicate(result):
                return result
            time.sleep(0.5)
        fail(f"{what}: {promql} returned {json.dumps(result)[:2000]}")

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def by_bus(result):
    return {r["metric"].get("pci_bus_id"): float(r["value"][1]) for r in result}


def dashboard_queries(path):
    with open(path) as f:
        dash = json.load(f)
    subst = {"$vendor": ".*", "$instance": ".*", "$__rate_interval": "1m", "$__range": "5m"}
    for panel in dash["panels"]:
        for target in panel.get("targets", []):
            expr = target["expr"]
            for k, v in subst.items():
                expr = expr.replace(k, v)
            yield panel["title"], expr


def main():
    binary, fixture, dashboard = sys.argv[1:4]
    require_tool("promtool")
    work = temp_dir("anygpu-exporter-prom-")
    root = copy_fixture(fixture, os.path.join(work, "host"))
    files = busy_files(root)
    check(len(files) == 8, f"fixture copy should have 8 gpu_busy_percent files, has {len(files)}")
    expected = {bus: int(open(p).read()) / 100 for bus, p in files.items()}

    exporter = Exporter(binary, ["--root", root, "--no-libs"], ["--interval", "1"])
    prom = None
    try:
        # What the exporter serves is valid exposition format, by Prometheus' own linter.
        status, fields, body = get(exporter.port)
        check(status == 200, f"GET /metrics: {status}")
        check(fields.get("content-type") == "text/plain; version=0.0.4; charset=utf-8",
              f"Content-Type: {fields.get('content-type')}")
        lint = subprocess.run([require_tool("promtool"), "check", "metrics"], input=body,
                              capture_output=True)
        check(lint.returncode == 0,
              f"promtool check metrics failed:\n{lint.stdout.decode()}{lint.stderr.decode()}")
        served = parse_samples(body.decode())
        check(sum(1 for (n, _) in served if n == "anygpu_gpu_utilization_ratio") == 8,
              "8 utilization series expected in the exposition")

        prom = Prometheus(work, f"127.0.0.1:{exporter.port}")
        prom.wait_for('up{job="anygpu"}', lambda r: len(r) == 1 and r[0]["value"][1] == "1",
                      "scrape target up")
        util = prom.wait_for("anygpu_gpu_utilization_ratio", lambda r: len(r) == 8,
                             "8 GPUs' utilization")
        for r in util:
            m = r["metric"]
            for label in ("vendor", "gpu", "pci_bus_id"):
                check(label in m, f"series without {label}: {m}")
            check(m["vendor"] == "amd", f"vendor label: {m}")
        got = by_bus(util)
        check(got == expected, f"utilization by bus: got {got}, fixture says {expected}")
        info = prom.query("anygpu_gpu_info")
        check(len(info) == 8, f"anygpu_gpu_info: {len(info)} series")
        up = prom.query('anygpu_backend_up{vendor="amd"}')
        check(len(up) >= 1 and all(r["value"][1] == "1" for r in up), f"backend_up: {up}")
        for metric in ("anygpu_gpu_memory_used_bytes", "anygpu_gpu_memory_total_bytes",
                       "anygpu_gpu_temperature_celsius"):
            res = prom.query(metric)
            check(len(res) == 8, f"{metric}: {len(res)} series")

        # The copy's sysfs changes; the next samples and scrapes follow.
        bus = sorted(files)[3]
        write_atomic(files[bus], "42\n")
        prom.wait_for(f'anygpu_gpu_utilization_ratio{{pci_bus_id="{bus}"}}',
                      lambda r: len(r) == 1 and float(r[0]["value"][1]) == 0.42,
                      "utilization after the sysfs change", timeout=20)
        others = by_bus(prom.query("anygpu_gpu_utilization_ratio"))
        check(all(others[b] == expected[b] for b in expected if b != bus),
              "other GPUs changed too")

        # Every dashboard query is valid PromQL over what the exporter serves.
        for title, expr in dashboard_queries(dashboard):
            prom.query(expr)  # fails the test on a PromQL error
        print("dashboard queries: all evaluated")

        rc = exporter.terminate()
        check(rc == 0, f"exporter exit status after SIGTERM: {rc}")
        print("PASS: prometheus scrapes anygpu exporter")
    finally:
        exporter.terminate()
        if prom:
            prom.stop()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
