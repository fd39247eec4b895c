#!/usr/bin/env bash
# `anygpu run --nproc-per-node 2` through Debian's torchrun on a CPU host: two processes
# rendezvous over gloo, all_reduce, and both ranks report; SIGTERM to anygpu ends every
# process of a running launch.
set -u
bin=$(realpath "$1")
hosts=$(realpath "$2")
fail=0
command -v torchrun >/dev/null || { echo "FAIL: torchrun (python3-torch) is required"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
cat >allreduce.py <<'PY'
import os
import torch
import torch.distributed as dist

dist.init_process_group(os.environ["ANYGPU_DIST_BACKEND"])
t = torch.tensor([dist.get_rank() + 1])
dist.all_reduce(t)
print(f"rank {dist.get_rank()}/{dist.get_world_size()} sum {int(t)} "
      f"workers {os.environ['ANYGPU_NUM_WORKERS']}", flush=True)
dist.destroy_process_group()
PY
# Below the ephemeral range (32768-): a port the kernel may give an outgoing connection as its
# source port can make a rank connect to itself before the store listens (tests/e2e/ports.py).
port=$((20000 + RANDOM % 12000))
"$bin" --root "$hosts/cloud-vm-none" --no-libs -v run --no-check --nproc-per-node 2 \
  --master-addr 127.0.0.1 --master-port "$port" -- allreduce.py >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
if [ $rc -ne 0 ]; then echo "FAIL torchrun exit $rc"; tail -30 "$tmp/err"; fail=1; fi
for r in 0 1; do
  grep -q "rank $r/2 sum 3" "$tmp/out" && echo "ok   rank $r reported" || { echo "FAIL rank $r missing"; fail=1; }
done

# SIGTERM to anygpu while the ranks run: torchrun stops its workers, and what each worker
# started ends with the launch too, even a child in a session of its own.
cat >tree.py <<'PY'
import os
import subprocess
import time

rank = os.environ["RANK"]
child = subprocess.Popen(["sleep", "300"])
session = subprocess.Popen(["sleep", "300"], start_new_session=True)
for name, pid in (("worker", os.getpid()), ("child", child.pid), ("session", session.pid)):
    with open(os.path.join(os.environ["TREE"], f"{name}-{rank}.pid"), "w") as f:
        f.write(str(pid))
time.sleep(300)
PY
mkdir tree
set -m  # the background anygpu keeps its signals as a job of its own
port=$((20000 + RANDOM % 12000))
TREE="$tmp/tree" "$bin" --root "$hosts/cloud-vm-none" --no-libs run --no-check --nproc-per-node 2 \
  --master-addr 127.0.0.1 --master-port "$port" -- tree.py >"$tmp/tree-out" 2>"$tmp/tree-err" &
anygpu=$!
for _ in $(seq 1 1200); do
  [ "$(find tree -name '*.pid' | wc -l)" -ge 6 ] && break
  sleep 0.1
done
set +m
if [ "$(find tree -name '*.pid' | wc -l)" -lt 6 ]; then
  echo "FAIL the ranks did not start"; tail -30 "$tmp/tree-err"; fail=1; kill -KILL "$anygpu"
else
  kill -TERM "$anygpu"
  wait "$anygpu"
  echo "anygpu after SIGTERM: exit $?"
  for f in tree/*.pid; do
    pid=$(cat "$f")
    state=$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\) .*/\1/p' "/proc/$pid/stat" 2>/dev/null)
    if [ -z "$state" ] || [ "$state" = Z ]; then
      echo "ok   $(basename "$f" .pid) ($pid) ended with the launch"
    else
      echo "FAIL $(basename "$f" .pid) ($pid) survived the launch ($state)"; fail=1; kill -KILL "$pid"
    fi
  done
fi

"$bin" --root "$hosts/cloud-vm-none" --no-libs run --no-check --dry-run --nproc-per-node auto -- allreduce.py >"$tmp/plan"
grep -q -- "torchrun --nproc_per_node 1" "$tmp/plan" && echo "ok   auto on CPU is 1" || { echo "FAIL auto plan"; cat "$tmp/plan"; fail=1; }
exit $fail
