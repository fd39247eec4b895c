#!/usr/bin/env bash
# `anygpu ps` finds a real process of this machine: it holds a fixture's render node (opened
# through the fixture root) from inside a Slurm-shaped cgroup, and the fixture's /proc is this
# machine's own (a bind mount), so the fd links, status and cgroup files are the kernel's.
# Needs root (mount, cgroup directories): CI runs as root; elsewhere this test fails loudly.
set -u
bin=$1
hosts=$2
[ "$(id -u)" = 0 ] || { echo "FAIL: needs root for the /proc bind mount and a cgroup"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ps-real.XXXXXX")
cg=""
holder=""
cleanup() {
  [ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
  umount "$tmp/h/proc" 2>/dev/null
  [ -n "$cg" ] && rmdir "$cg" "$(dirname "$cg")" "$(dirname "$(dirname "$cg")")" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
cp -a "$hosts/mi300x-8x" "$tmp/h"
rm -rf "$tmp/h/proc" && mkdir "$tmp/h/proc"
mkdir -p "$tmp/h/etc" && printf 'root:x:0:0:root:/root:/bin/sh\n' >"$tmp/h/etc/passwd"
mount --bind /proc "$tmp/h/proc" || { echo "FAIL: cannot bind-mount /proc"; exit 1; }

# The first render node the fixture gives a device.
node=$("$bin" --root "$hosts/mi300x-8x" --no-libs detect --json |
       /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"][0]; print(d["render_node"], d["pci"]["bus_id"])')
read -r render bus <<<"$node"

# A Slurm-shaped cgroup (v1 layout: /slurm/uid_U/job_N/step_S) in whichever hierarchy exists.
for h in /sys/fs/cgroup/pids /sys/fs/cgroup/systemd /sys/fs/cgroup/unified /sys/fs/cgroup; do
  if [ -w "$h" ] && mkdir -p "$h/slurm/uid_0/job_4242/step_0" 2>/dev/null; then
    cg="$h/slurm/uid_0/job_4242/step_0"; break
  fi
done
[ -n "$cg" ] || { echo "FAIL: no writable cgroup hierarchy"; exit 1; }

sleep 60 9<"$tmp/h$render" &
holder=$!
echo "$holder" >"$cg/cgroup.procs" || { echo "FAIL: cannot move the holder into $cg"; exit 1; }

"$bin" --root "$tmp/h" --no-libs ps --json >"$tmp/ps.json" || { echo "FAIL: ps exit $?"; exit 1; }
/usr/bin/python3 - "$tmp/ps.json" "$holder" "$bus" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
pid, bus = int(sys.argv[2]), sys.argv[3]
assert doc["schema"] == "anygpu.processes/v1", doc
mine = [p for p in doc["processes"] if p["pid"] == pid]
assert mine, f"holder {pid} not listed: {doc}"
p = mine[0]
assert p["devices"] == [bus], p
assert p["command"] == "sleep", p
assert p["user"] == "root", p
assert p["slurm"] == {"job_id": "4242", "step": "0"}, p
assert "memory_bytes" not in p, p  # a plain file has no DRM statistics
print("ok   real holder", pid, "on", bus, "attributed to slurm job 4242 step 0")
PY
