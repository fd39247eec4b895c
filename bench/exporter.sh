#!/usr/bin/env bash
# Scrape cost of `anygpu exporter` against prometheus-node-exporter (drm + hwmon collectors, the
# node_exporter way to see AMD GPUs), both reading the same 8x MI300X fixture sysfs.
# Usage: bench/exporter.sh [BUILD_DIR] [SCRAPES]   (prints a Markdown table)
#
# Each exporter is scraped SCRAPES times (default 2000) by one client on a kept-alive
# connection, as Prometheus does. Reported: median and p99 scrape latency, exporter CPU time per
# scrape (utime+stime over the run / scrapes; anygpu's includes its background sampling every
# second), resident memory (VmRSS) after the run, and the body size. anygpu runs twice: with its
# health series (the default: `anygpu health` every 10 s in the background, its series on the
# page) and with --no-health, to show what the health series cost a scrape.
set -euo pipefail
build=${1:-build}
scrapes=${2:-2000}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/anygpu"
fixture="$here/tests/hosts/mi300x-8x"
py=/usr/bin/python3
node_exporter=$(command -v prometheus-node-exporter || command -v node_exporter || true)
[[ -x $bin ]] || { echo "no $bin (build first)"; exit 1; }
[[ -n $node_exporter ]] || { echo "prometheus-node-exporter missing (apt-get install prometheus-node-exporter)"; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { $py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

"$bin" --root "$fixture" --no-libs exporter --listen 127.0.0.1:0 --interval 1 2>"$work/anygpu.err" &
pids+=($!)
anygpu_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/anygpu.err" && break; sleep 0.1; done
anygpu_addr=$(sed -n 's#.*listening on http://\([^ ]*\).*#\1#p' "$work/anygpu.err")
[[ -n $anygpu_addr ]] || { cat "$work/anygpu.err"; exit 1; }

"$bin" --root "$fixture" --no-libs exporter --listen 127.0.0.1:0 --interval 1 --no-health \
  2>"$work/nohealth.err" &
pids+=($!)
nohealth_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/nohealth.err" && break; sleep 0.1; done
nohealth_addr=$(sed -n 's#.*listening on http://\([^ ]*\).*#\1#p' "$work/nohealth.err")
[[ -n $nohealth_addr ]] || { cat "$work/nohealth.err"; exit 1; }

ne_port=$(free_port)
"$node_exporter" --collector.disable-defaults --collector.drm --collector.hwmon \
  --path.sysfs="$fixture/sys" --path.procfs="$fixture/proc" \
  --web.listen-address="127.0.0.1:$ne_port" --log.level=error 2>"$work/ne.err" &
pids+=($!)
ne_pid=$!
for _ in $(seq 100); do
  $py -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$ne_port/metrics', timeout=1)" 2>/dev/null && break
  sleep 0.1
done

$py - "$scrapes" "anygpu exporter|$anygpu_addr|$anygpu_pid" \
  "node_exporter --collector.drm --collector.hwmon|127.0.0.1:$ne_port|$ne_pid" \
  "anygpu exporter --no-health|$nohealth_addr|$nohealth_pid" <<'EOF'
import http.client, os, statistics, sys, time

scrapes = int(sys.argv[1])
ticks = os.sysconf("SC_CLK_TCK")

def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / ticks

def rss(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

rows = []
for spec in sys.argv[2:]:
    name, addr, pid = spec.split("|")
    host, port = addr.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    for _ in range(20):  # warm-up
        conn.request("GET", "/metrics"); conn.getresponse().read()
    lat, size, series = [], 0, 0
    c0 = cpu(pid)
    for _ in range(scrapes):
        t = time.perf_counter()
        conn.request("GET", "/metrics")
        r = conn.getresponse()
        body = r.read()
        lat.append(time.perf_counter() - t)
        assert r.status == 200, r.status
    c1 = cpu(pid)
    size = len(body)
    series = sum(1 for l in body.decode().splitlines() if l and not l.startswith("#"))
    if name == "anygpu exporter":
        assert b"anygpu_gpu_health{" in body, "no health series on the page"
    lat.sort()
    rows.append((name, statistics.median(lat) * 1e3, lat[int(len(lat) * 0.99) - 1] * 1e3,
                 (c1 - c0) / scrapes * 1e6, rss(int(pid)), size, series))

print(f"Scrapes of the 8x MI300X fixture, {scrapes} per exporter, one kept-alive client.\n")
print("| exporter | median latency | p99 latency | CPU per scrape | RSS | body | series |")
print("|---|---:|---:|---:|---:|---:|---:|")
for n, med, p99, cpu_us, r, size, series in rows:
    print(f"| {n} | {med:.3f} ms | {p99:.3f} ms | {cpu_us:.0f} µs | {r:.1f} MiB | {size} B | {series} |")
a, b, c = rows[0], rows[1], rows[2]
print(f"\nMedian latency ratio anygpu / node_exporter: {a[1] / b[1]:.3f} "
      f"(node_exporter is {b[1] / a[1]:.1f}x slower); CPU ratio: {a[3] / max(b[3], 1e-9):.3f}.")
print(f"Health series: median {a[1]:.3f} ms with, {c[1]:.3f} ms without "
      f"(ratio {a[1] / c[1]:.2f}; target: at most 0.5 ms with).")
EOF
