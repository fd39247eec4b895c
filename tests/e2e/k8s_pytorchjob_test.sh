#!/usr/bin/env bash
# The PyTorchJob `anygpu k8s job --nnodes 2 --gpus 2` writes, run as the training operator would
# run it: two "pods" as local processes with the operator's environment (k8s_pytorchjob_pods.py),
# each starting two processes; DDP over gloo (Debian's torch) must complete on all four ranks.
# A control runs the command once per pod, as the manifest did before, and must not complete.
set -u
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
fail=0
command -v torchrun >/dev/null || { echo "FAIL: torchrun (python3-torch) is required"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/train.py" <<'PY'
import os
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
torch.manual_seed(0)
model = DDP(torch.nn.Linear(4, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.full((8, 4), float(dist.get_rank() + 1))
model(x).sum().backward()
opt.step()
w = model.module.weight.detach().clone()
ref = w.clone()
dist.broadcast(ref, 0)
assert torch.equal(w, ref), "replicas diverged"
print(f"ddp rank {dist.get_rank()}/{dist.get_world_size()} "
      f"local {os.environ['LOCAL_RANK']}/{os.environ['LOCAL_WORLD_SIZE']} done", flush=True)
dist.destroy_process_group()
PY
# The "image": Debian's torch 1.13 under Python 3.11 crashes on torchrun's default --redirects 0
# (an enum change; newer torch is fixed), so the image's torchrun passes --redirects 1 --tee 1.
# Its python3 is Debian's. Everything else is the manifest's own command.
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexec %s --redirects 1 --tee 1 "$@"\n' "$(command -v torchrun)" >"$tmp/bin/torchrun"
chmod +x "$tmp/bin/torchrun"
ln -s /usr/bin/python3 "$tmp/bin/python3"  # the image's python3 is the one torch is built for
export PATH="$tmp/bin:$PATH"
"$bin" k8s job --vendor nvidia --resource nvidia.com/gpu --gpus 2 --nnodes 2 --name ddp \
  --image registry.example/train:1 -- python3 train.py >"$tmp/job.yaml" || { echo "FAIL k8s job"; exit 1; }
/usr/bin/python3 "$here/k8s_pytorchjob_pods.py" "$tmp/job.yaml" "$tmp" 240 >"$tmp/pods.out"
rc=$?
cat "$tmp/pods.out"
if [ $rc -ne 0 ]; then
  echo "FAIL pods exit $rc"; tail -n 30 "$tmp"/master-0.log "$tmp"/worker-0.log; fail=1
fi
for r in 0 1 2 3; do
  if cat "$tmp"/master-0.log "$tmp"/worker-0.log | grep -q "ddp rank $r/4 local [01]/2 done"; then
    echo "ok   rank $r of 4 completed DDP"
  else
    echo "FAIL rank $r did not complete"; fail=1
  fi
done
# Control: the command alone in each pod (no torchrun) waits for ranks nobody starts.
/usr/bin/python3 "$here/k8s_pytorchjob_pods.py" "$tmp/job.yaml" "$tmp" 20 \
  --args-override '["python3", "train.py"]' >"$tmp/control.out"
rc=$?
if [ $rc -eq 124 ]; then echo "ok   one process per pod hangs (control)"; else
  echo "FAIL control exited $rc instead of hanging"; cat "$tmp/control.out"; fail=1; fi
exit $fail
