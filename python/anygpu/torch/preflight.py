"""The framework test `anygpu preflight` runs in each process it launches (one per selected
device, through the same launch plan as `anygpu run`):

    python -m anygpu.torch.preflight OUT_DIR

Each process tests the device LOCAL_RANK selects and writes OUT_DIR/rank-<RANK>.json
(schema anygpu.preflight-rank/v1): matmul throughput, a memory pattern test, memory write bandwidth, host<->device
copy bandwidth and an all-reduce across every process with the vendor's backend. It measures;
`anygpu preflight` judges throughput against the registry's figure for the device's model.
A test that cannot run says why (status "fail" or "skipped"), never passes by default.
"""
import json
import os
import sys
import time

import torch

from . import _device
from ._amp import amp_dtype
from ._distributed import init_distributed, leave, ranks

SCHEMA = "anygpu.preflight-rank/v1"
# Work sizes: an accelerator gets enough to reach its steady rate within the time budget, the
# CPU path (what a host without accelerators tests) a size it finishes in well under a second.
MATMUL_N = {"cpu": 384, "device": 8192}
MATMUL_SECONDS = {"cpu": 0.3, "device": 1.0}
PATTERN_BYTES = {"cpu": 16 << 20, "device": 1 << 30}
COPY_BYTES = 256 << 20
REDUCE_BYTES = {"cpu": 4 << 20, "device": 64 << 20}
# Byte patterns of a memory test: all bits clear, all set, and the two checkerboards.
PATTERNS = (0x00, 0xFF, 0x55, 0xAA)
TESTS = ("matmul", "memory_pattern", "memory_bandwidth", "host_device_copy", "all_reduce")


def _kind(dev) -> str:
    return "cpu" if dev.type == "cpu" else "device"


def _test(name, value=None, unit=None, status="measured", detail=None) -> dict:
    t = {"name": name, "status": status}
    if value is not None:
        t["value"] = value
    if unit is not None:
        t["unit"] = unit
    if detail:
        t["detail"] = detail
    return t


def _timed(dev, fn, seconds: float, warmup: int = 2):
    """Calls fn until `seconds` have passed (after `warmup` calls); returns (calls, elapsed)."""
    for _ in range(warmup):
        fn()
    _device.synchronize(dev)
    calls, began = 0, time.perf_counter()
    while True:
        fn()
        calls += 1
        if calls % 4 == 0 or calls == 1:
            _device.synchronize(dev)
            elapsed = time.perf_counter() - began
            if elapsed >= seconds:
                return calls, elapsed


def _timed_collective(dev, fn, seconds: float):
    """Like _timed for a collective: every rank must make the same number of calls, or the rank
    whose clock said "stop" first leaves the others waiting in a collective it never enters.
    Two calls measure the rate; the ranks agree on the slowest one's estimate, then all time
    exactly that many calls."""
    fn()  # warm-up: connections and buffers
    _device.synchronize(dev)
    began = time.perf_counter()
    fn()
    fn()
    _device.synchronize(dev)
    per_call = torch.tensor([(time.perf_counter() - began) / 2], dtype=torch.float32, device=dev)
    torch.distributed.all_reduce(per_call, op=torch.distributed.ReduceOp.MAX)
    calls = max(1, min(100_000, int(seconds / max(float(per_call.item()), 1e-6))))
    _device.synchronize(dev)
    began = time.perf_counter()
    for _ in range(calls):
        fn()
    _device.synchronize(dev)
    return calls, time.perf_counter() - began


def matmul(dev) -> dict:
    kind = _kind(dev)
    dtype = torch.float32 if kind == "cpu" else (amp_dtype(dev.type) or torch.float32)
    n = MATMUL_N[kind]
    a = torch.randn(n, n, device=dev, dtype=dtype)
    b = torch.randn(n, n, device=dev, dtype=dtype)
    calls, elapsed = _timed(dev, lambda: torch.mm(a, b), MATMUL_SECONDS[kind])
    tflops = 2.0 * n ** 3 * calls / elapsed / 1e12
    return _test("matmul", round(tflops, 4), "TFLOPS",
                 detail=f"{n}x{n} {str(dtype).replace('torch.', '')}, {calls} in {elapsed:.3f} s")


def memory_pattern(dev) -> dict:
    """Writes each byte pattern, then an address pattern (each 32-bit word its own index), over
    one buffer and reads every word back; any word read back wrong fails the device."""
    size = PATTERN_BYTES[_kind(dev)]
    buf = torch.empty(size, dtype=torch.uint8, device=dev)
    bad = 0
    for pattern in PATTERNS:
        buf.fill_(pattern)
        bad += int((buf != pattern).sum())
    words = buf.view(torch.int32)
    index = torch.arange(words.numel(), dtype=torch.int32, device=dev)
    words.copy_(index)
    bad += int((words != index).sum())
    _device.synchronize(dev)
    detail = f"{size >> 20} MiB, patterns 00 ff 55 aa and word index"
    if bad:
        return _test("memory_pattern", bad, "bad reads", "fail", detail)
    return _test("memory_pattern", 0, "bad reads", "pass", detail)


def memory_bandwidth(dev) -> dict:
    """Write bandwidth of device memory: one buffer filled over and over."""
    size = PATTERN_BYTES[_kind(dev)]
    buf = torch.empty(size, dtype=torch.uint8, device=dev)
    calls, elapsed = _timed(dev, lambda: buf.fill_(0x5A), MATMUL_SECONDS[_kind(dev)])
    return _test("memory_bandwidth", round(size * calls / elapsed / 1e9, 3), "GB/s",
                 detail=f"{size >> 20} MiB written {calls} times in {elapsed:.3f} s")


def host_device_copy(dev) -> dict:
    if dev.type == "cpu":
        return _test("host_device_copy", status="skipped",
                     detail="the CPU path has no host<->device copy")
    host = torch.empty(COPY_BYTES, dtype=torch.uint8).pin_memory()
    target = torch.empty(COPY_BYTES, dtype=torch.uint8, device=dev)
    calls, elapsed = _timed(dev, lambda: target.copy_(host, non_blocking=True), 0.3, warmup=1)
    to_device = COPY_BYTES * calls / elapsed / 1e9
    calls, elapsed = _timed(dev, lambda: host.copy_(target, non_blocking=True), 0.3, warmup=1)
    to_host = COPY_BYTES * calls / elapsed / 1e9
    return _test("host_device_copy", round(min(to_device, to_host), 3), "GB/s",
                 detail=f"to device {to_device:.1f} GB/s, to host {to_host:.1f} GB/s "
                        f"(pinned, {COPY_BYTES >> 20} MiB)")


def all_reduce(dev, world: int) -> dict:
    if world <= 1:
        return _test("all_reduce", status="skipped", detail="one process: nothing to reduce across")
    dist = torch.distributed
    backend = dist.get_backend()
    count = REDUCE_BYTES[_kind(dev)] // 4
    rank = dist.get_rank()
    buf = torch.empty(count, dtype=torch.float32, device=dev)
    want = world * (world + 1) / 2

    def reduce_once():
        buf.fill_(rank + 1)
        dist.all_reduce(buf)

    calls, elapsed = _timed_collective(dev, reduce_once, 0.5)
    wrong = int((buf != want).sum())
    # Bus bandwidth as NCCL's tests define it for all-reduce: algbw * 2 (n - 1) / n.
    bus = count * 4 * calls / elapsed / 1e9 * 2 * (world - 1) / world
    detail = f"{backend}, {world} processes, {count * 4 >> 20} MiB, bus bandwidth"
    if wrong:
        return _test("all_reduce", wrong, "wrong elements", "fail",
                     f"{backend}: {wrong} of {count} elements are not {want:g}")
    return _test("all_reduce", round(bus, 3), "GB/s", "pass", detail)


def _guarded(name, fn, *args) -> dict:
    try:
        return fn(*args)
    except Exception as e:  # a device error is this test's result, not the process's end
        return _test(name, status="fail", detail=f"{type(e).__name__}: {e}")


def _unusable(dev, sel) -> str:
    """Why this process cannot test the selected device, or "" when it can."""
    if isinstance(dev, _device.SimulatedDevice) or _device.simulated():
        return "a simulated host (ANYGPU_ROOT): the device exists only in a fixture tree"
    if sel.get("torch_device", "cpu") != "cpu" and dev.type == "cpu":
        return (f"this torch ({torch.__version__}) cannot use the selected "
                f"{sel.get('torch_device')} device; see `anygpu wheel`")
    return ""


def run() -> dict:
    r = ranks()
    sel = _device.selection()
    dev = _device.device()
    result = {"schema": SCHEMA, "rank": r.rank, "local_rank": r.local_rank,
              "world_size": r.world_size, "device": str(dev), "torch": torch.__version__,
              "tests": []}
    why = _unusable(dev, sel)
    if why:
        result["tests"] = [_test(n, status="skipped", detail=why)
                           for n in TESTS]
        return result
    tests = result["tests"]
    tests.append(_guarded("matmul", matmul, dev))
    tests.append(_guarded("memory_pattern", memory_pattern, dev))
    tests.append(_guarded("memory_bandwidth", memory_bandwidth, dev))
    tests.append(_guarded("host_device_copy", host_device_copy, dev))
    try:
        joined = r.world_size > 1 and init_distributed()
    except Exception as e:  # the rendezvous failed: this device's all-reduce did
        tests.append(_test("all_reduce", status="fail", detail=f"{type(e).__name__}: {e}"))
        return result
    tests.append(_guarded("all_reduce", all_reduce, dev, r.world_size if joined else 1))
    if joined:
        torch.distributed.barrier()
        leave()
    return result


def write(out_dir: str, result: dict) -> None:
    """Whole or not at all: written beside, then renamed into place."""
    path = os.path.join(out_dir, f"rank-{result['rank']}.json")
    part = f"{path}.part"
    with open(part, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")
    os.replace(part, path)


def main(argv) -> int:
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: python -m anygpu.torch.preflight OUT_DIR (an existing directory)",
              file=sys.stderr)
        return 2
    torch.set_num_threads(max(1, torch.get_num_threads()))
    write(argv[1], run())
    sys.stdout.flush()
    sys.stderr.flush()
    # torch 2.x's gloo run-loop thread can still drop the last collective's tensors while
    # CPython finalizes, which aborts the process (pytorch/pytorch#190489); the result is
    # written, so leave without finalizing.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
