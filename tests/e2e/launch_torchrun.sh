#!/usr/bin/env bash
# `anygpu run --nproc-per-node 2` through Debian's torchrun on a CPU host: two processes
# rendezvous over gloo, all_reduce, and both ranks report.
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
"$bin" --root "$hosts/cloud-vm-none" --no-libs run --no-check --dry-run --nproc-per-node auto -- allreduce.py >"$tmp/plan"
grep -q -- "torchrun --nproc_per_node 1" "$tmp/plan" && echo "ok   auto on CPU is 1" || { echo "FAIL auto plan"; cat "$tmp/plan"; fail=1; }
exit $fail
