"""A 2-process gloo job for `anygpu run --debug-hangs`: every rank all-reduces in a loop; at
step 20 rank 1 sleeps inside the loop (writing the time it started to argv[1]) while rank 0
waits for it in the next reduce."""
import sys
import time

import torch

import anygpu.torch as agt


def sleep_inside_loop(marker: str) -> None:
    with open(marker, "w") as f:
        f.write(repr(time.time()))
    time.sleep(600)


def main() -> None:
    agt.init_distributed()
    rank = agt.ranks().rank
    for step in range(100000):
        agt.reduce(torch.ones(1))
        if rank == 1 and step == 20:
            sleep_inside_loop(sys.argv[1])
        time.sleep(0.01)


if __name__ == "__main__":
    main()
