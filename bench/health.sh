#!/usr/bin/env bash
# `anygpu health` on the 8-GPU fixtures (libraries off), against `anygpu detect --json` on the
# same fixture (health is discovery plus the checks, so the ratio is what the checks cost),
# and `anygpu ps` on a synthetic /proc of 2,000 processes holding 100,000 descriptors (every
# tenth process holds a GPU node), against `find PROC -path '*/fd/*' -lname '/dev/nvidia*'`,
# the by-hand way to list holders, over the same tree.
# Usage: bench/health.sh [BUILD_DIR]   (prints a Markdown table; needs hyperfine)
# Targets: health at most 10 ms per 8-GPU fixture, ps at most 100 ms.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$build/anygpu"
hosts="$here/tests/hosts"
[[ -x $bin ]] || { echo "bench/health.sh: $bin not built" >&2; exit 2; }
command -v hyperfine >/dev/null || { echo "hyperfine missing (apt-get install hyperfine)" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The synthetic host: the 8×H100 fixture plus /proc/1000…2999, 50 descriptors each (pts, null,
# sockets' stand-ins, and /dev/nvidiaN for every tenth process), fdinfo for the GPU ones.
cp -a "$hosts/h100-8x" "$out/ps-host"
/usr/bin/python3 - "$out/ps-host" <<'PY'
import os, sys
root = sys.argv[1]
for i in range(2000):
    pid = 1000 + i
    base = f"{root}/proc/{pid}"
    os.makedirs(f"{base}/fd"); os.makedirs(f"{base}/fdinfo")
    with open(f"{base}/comm", "w") as f: f.write("python3\n" if i % 10 == 0 else "worker\n")
    with open(f"{base}/status", "w") as f: f.write(f"Name:\tx\nUid:\t{i % 7}\t0\t0\t0\n")
    with open(f"{base}/cgroup", "w") as f:
        f.write(f"0::/kubepods.slice/kubepods-pod{i:08d}_aaaa_bbbb_cccc_dddddddddddd.slice/"
                f"cri-containerd-{i:064x}.scope\n")
    for fd in range(50):
        if i % 10 == 0 and fd == 3:
            target = f"/dev/nvidia{i // 10 % 8}"
            with open(f"{base}/fdinfo/{fd}", "w") as f: f.write("pos:\t0\nflags:\t02\n")
        else:
            target = ["/dev/null", "/dev/pts/0", "/dev/nvidiactl", f"/tmp/f{fd}"][fd % 4]
        os.symlink(target, f"{base}/fd/{fd}")
PY
ps_fixture="$out/ps-host"
fds=$(find "$ps_fixture/proc" -path '*/fd/*' -type l | wc -l)

hyperfine -N --style none --warmup 3 --min-runs 30 --export-json "$out/r.json" \
  --command-name "anygpu health (8×H100 fixture)" "$bin --root $hosts/h100-8x --no-libs health" \
  --command-name "anygpu detect --json (8×H100 fixture)" "$bin --root $hosts/h100-8x --no-libs detect --json" \
  --command-name "anygpu health (8×MI300X fixture)" "$bin --root $hosts/mi300x-8x --no-libs health" \
  --command-name "anygpu detect --json (8×MI300X fixture)" "$bin --root $hosts/mi300x-8x --no-libs detect --json" \
  --command-name "anygpu health (8×Ascend 910B fixture)" "$bin --root $hosts/ascend-910b-8x --no-libs health" \
  --command-name "anygpu detect --json (8×Ascend 910B fixture)" "$bin --root $hosts/ascend-910b-8x --no-libs detect --json" \
  --command-name "anygpu ps --json (2,000 processes, $fds fds)" "$bin --root $ps_fixture --no-libs --json ps" \
  --command-name "find PROC -path '*/fd/*' -lname '/dev/nvidia*' (same tree)" \
  "find $ps_fixture/proc -path */fd/* -lname /dev/nvidia*" \
  >/dev/null
holders=$("$bin" --root "$ps_fixture" --no-libs --json ps | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["processes"]))')
/usr/bin/python3 - "$out/r.json" "$holders" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"`anygpu ps` found {sys.argv[2]} holders.\n")
print("| command | median | mean | σ | ratio to its peer (next row) |")
print("|---|---:|---:|---:|---:|")
for i, x in enumerate(r):
    ms = lambda v: f"{v * 1000:.2f} ms"
    ratio = f"**{x['median'] / r[i + 1]['median']:.2f}**" if i % 2 == 0 else "1.00"
    print(f"| {x['command']} | {ms(x['median'])} | {ms(x['mean'])} | {ms(x['stddev'] or 0)} | {ratio} |")
PY
