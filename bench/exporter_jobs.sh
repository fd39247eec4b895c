#!/usr/bin/env bash
# The exporter's budget with --processes at 2,000 processes: resident memory and scrape latency
# of this build against a baseline binary (the one before per-job accounting), both serving the
# same synthetic host: the 8×MI300X fixture plus /proc/1000…2999, 50 descriptors each; every
# tenth process holds a GPU's render node with amdgpu DRM statistics (engine time, resident
# VRAM) and sits in one of 50 Slurm jobs' cgroups (SLURM_JOB_GPUS in its environment), so the
# job accounting has 200 holders, 50 jobs and their allocations to keep. The engine counters
# grow between scans. This build runs with its journals and without (--journal-dir "").
# Usage: bench/exporter_jobs.sh [BUILD_DIR] [BASELINE_BINARY] [SCRAPES]   (prints Markdown)
# Put BASELINE_BINARY on the same file system as BUILD_DIR: RSS counts the binary's pages
# differently on tmpfs.
set -euo pipefail
build=${1:-build}
baseline=${2:-}
scrapes=${3:-400}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/anygpu"
py=/usr/bin/python3
[[ -x $bin ]] || { echo "bench/exporter_jobs.sh: $bin not built" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -a "$here/tests/hosts/mi300x-8x" "$work/host"
"$bin" --root "$work/host" --no-libs detect --json >"$work/inv.json"

$py - "$work" "$scrapes" "$bin" ${baseline:+"$baseline"} <<'PY'
import http.client, json, os, re, statistics, subprocess, sys, threading, time

work, scrapes, binaries = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
root = f"{work}/host"
devices = json.load(open(f"{work}/inv.json"))["devices"]

def fdinfo(bus, client, ns):
    return (f"pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t{client}\n"
            f"drm-pdev:\t{bus}\ndrm-engine-gfx:\t{ns} ns\ndrm-engine-compute:\t{ns // 2} ns\n"
            f"drm-resident-vram:\t{(client % 64 + 1) * 1024} KiB\n")

holders = []
for i in range(2000):
    pid = 1000 + i
    base = f"{root}/proc/{pid}"
    os.makedirs(f"{base}/fd"); os.makedirs(f"{base}/fdinfo")
    gpu = i % 10 == 0
    job = (i // 10) % 50
    with open(f"{base}/comm", "w") as f: f.write("python3\n" if gpu else "worker\n")
    with open(f"{base}/status", "w") as f: f.write(f"Name:\tx\nState:\tS (sleeping)\nUid:\t{i % 7}\t0\t0\t0\n")
    with open(f"{base}/cgroup", "w") as f:
        f.write(f"0::/system.slice/slurmstepd.scope/job_{1000 + job}/step_0/user/task_0\n" if gpu
                else "0::/user.slice/user-1000.slice/session-1.scope\n")
    with open(f"{base}/environ", "w") as f:
        f.write(f"PATH=/usr/bin\0SLURM_JOB_ID={1000 + job}\0SLURM_JOB_GPUS={job % 8},{(job + 1) % 8}\0")
    for fd in range(50):
        if gpu and fd == 3:
            d = devices[(i // 10) % 8]
            target = d["render_node"]
            holders.append((f"{base}/fdinfo/{fd}", d["pci"]["bus_id"], i))
            with open(f"{base}/fdinfo/{fd}", "w") as f: f.write(fdinfo(d["pci"]["bus_id"], i, 0))
        else:
            target = ["/dev/null", "/dev/pts/0", "/dev/kfd", f"/tmp/f{fd}"][fd % 4]
        os.symlink(target, f"{base}/fd/{fd}")
fds = sum(len(os.listdir(f"{root}/proc/{p}/fd")) for p in os.listdir(f"{root}/proc") if p.isdigit())

stop = False
def advance():
    step = 0
    while not stop:
        step += 1
        for path, bus, i in holders:
            with open(path + ".tmp", "w") as f: f.write(fdinfo(bus, i, step * 50_000_000 * (i % 3 + 1)))
            os.rename(path + ".tmp", path)
        time.sleep(1)

def status(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024

def anonymous(pid):  # heap and stacks: what RSS holds beyond the binary's own pages
    for line in open(f"/proc/{pid}/smaps_rollup"):
        if line.startswith("Anonymous:"):
            return int(line.split()[1]) / 1024

def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

rows = []
writer = threading.Thread(target=advance, daemon=True); writer.start()
runs = [("this build", binaries[0], ["--journal-dir", f"{work}/journal"]),
        ("this build, no journals", binaries[0], ["--journal-dir", ""]),
        # What the accounting costs apart from the series it serves.
        ("this build, --max-job-series 10", binaries[0], ["--journal-dir", "", "--max-job-series", "10"])]
# The baseline has no journal to keep (and no --journal-dir flag).
runs += [("baseline", b, []) for b in binaries[1:]]
for name, binary, journal in runs:
    p = subprocess.Popen([binary, "--root", root, "--no-libs", "exporter", "--listen", "127.0.0.1:0",
                          "--no-health", "--processes", "--processes-interval", "1", *journal],
                         stderr=subprocess.PIPE, text=True)
    addr = None
    while addr is None:
        line = p.stderr.readline()
        if not line: sys.exit(f"{name}: exporter exited")
        m = re.search(r"listening on http://(\S+)", line)
        addr = m.group(1) if m else None
    host, port = addr.rsplit(":", 1)
    time.sleep(3)  # a few scans
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    lat, c0, t0 = [], cpu(p.pid), time.monotonic()
    for _ in range(scrapes):
        t = time.perf_counter()
        conn.request("GET", "/metrics"); r = conn.getresponse(); body = r.read()
        lat.append(time.perf_counter() - t)
        time.sleep(0.025)
    c1, t1 = cpu(p.pid), time.monotonic()
    series = sum(1 for l in body.decode().splitlines() if l and not l.startswith("#"))
    jobs = body.count(b"anygpu_job_gpu_busy_seconds_total{")
    lat.sort()
    rows.append((name, statistics.median(lat) * 1e3, lat[int(len(lat) * 0.99) - 1] * 1e3,
                 status(p.pid, "VmRSS"), anonymous(p.pid), (c1 - c0) / (t1 - t0) * 100,
                 series, jobs, len(body)))
    p.terminate(); p.wait()
stop = True
print(f"2,000 processes, {fds} descriptors, {len(holders)} holders in 50 Slurm jobs; "
      f"{scrapes} scrapes one kept-alive client, 25 ms apart; --processes-interval 1.\n")
print("| exporter | median scrape | p99 scrape | RSS | of which anonymous | CPU (scans included) | series | job busy series | body |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for n, med, p99, rss, anon, cpu_pct, series, jobs, size in rows:
    print(f"| {n} | {med:.3f} ms | {p99:.3f} ms | {rss:.1f} MiB | {anon:.1f} MiB | {cpu_pct:.0f} % of a core | {series} | {jobs} | {size:,} B |")
PY
