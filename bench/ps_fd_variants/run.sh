#!/bin/bash
# How else `ps` could identify a descriptor's file, measured against readlinkat (what
# src/ps/processes.cc does). Needs root (mknod), gcc; writes under /tmp/psbench only.
#   bench/ps_fd_variants/run.sh [ROUNDS]
# Variants (scan.c): A readlinkat, B fstatat, C statx(TYPE|INO, DONT_SYNC), M statx(mask 0),
# P pidfd_getfd+fstat, U io_uring STATX batches; each with 1 and 2 threads. 2,000 holder
# processes keep ~112,000 descriptors open; half hold the target node; every run's holder set
# is compared with the one written at fork time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-15}
mkdir -p /tmp/psbench/devs && cd /tmp/psbench
gcc -O2 -o scan "$here/scan.c" -lpthread
gcc -O2 -o psholder "$here/holder.c"
./psholder 2000 > holder.log &
holder=$!
trap 'pkill -x psholder || true' EXIT
while ! grep -q forked holder.log 2>/dev/null; do sleep 0.2; done
awk '$2 == 1 {print $1}' holder.pids | sort > expected
: > results.txt
cfgs=("A 1" "A 2" "B 1" "B 2" "C 1" "C 2" "M 1" "M 2" "P 1" "P 2" "U 1" "U 2")
for r in $(seq 0 "$rounds"); do  # round 0 warms the caches and is not counted
  for i in "${!cfgs[@]}"; do
    set -- ${cfgs[$(((i + r) % ${#cfgs[@]}))]}
    line=$(./scan "$1" "$2" "out.$1.$2")
    cmp -s <(sort "out.$1.$2") expected || { echo "holder set differs: $1 $2" >&2; exit 1; }
    [ "$r" -gt 0 ] && echo "$line" >> results.txt
  done
done
python3 - <<'PY'
import collections, re, statistics
runs = collections.defaultdict(list)
for line in open("/tmp/psbench/results.txt"):
    v, t = line.split()[:2]
    f = dict(re.findall(r"(\w+)=([\d.]+)", line))
    runs[(v, t)].append((float(f["wall"]), float(f["user"]) + float(f["sys"]), int(f["fds"])))
base = statistics.median(w for w, _, _ in runs[("A", "1")])
for (v, t), rs in sorted(runs.items()):
    med = statistics.median(w for w, _, _ in rs)
    print(f"{v} {t} thread(s): median {med:.0f} ms, min {min(w for w, _, _ in rs):.0f} ms, "
          f"cpu {statistics.median(c for _, c, _ in rs):.0f} ms, fds {rs[0][2]}, "
          f"{med / base:.2f} of A 1")
PY
