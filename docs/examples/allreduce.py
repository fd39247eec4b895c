# Each rank adds its rank + 1 across the group (docs/run.md):
#   anygpu run --nproc-per-node 2 -- docs/examples/allreduce.py
import os

import torch
import torch.distributed as dist

dist.init_process_group(os.environ["ANYGPU_DIST_BACKEND"])
t = torch.tensor([dist.get_rank() + 1])
dist.all_reduce(t)
print(f"rank {dist.get_rank()}/{dist.get_world_size()} sum {int(t)} "
      f"workers {os.environ['ANYGPU_NUM_WORKERS']}", flush=True)
dist.destroy_process_group()
