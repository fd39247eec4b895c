"""`anygpu preflight` end to end, under the torch this suite runs with: the framework test
launched for real on the CPU (two processes, the gloo all-reduce across them), one verdict per
process; on a fixture host a device another run holds is skipped naming the holder and the
replayed ones are skipped without a launch, never passed (exit 3); a test process that hangs is stopped at
--timeout and its device fails; bad input is refused before anything starts."""
import json
import os
import subprocess
import time

from conftest import BINARY, PYTHON, clean_env, host, rendezvous_port, run_launch

TESTS = ["matmul", "memory_pattern", "memory_bandwidth", "host_device_copy", "all_reduce"]


def _preflight(tmp_path, *args, timeout=240, **env):
    return run_launch([BINARY, *args], timeout=timeout, cwd=tmp_path,
                      env=clean_env(OMP_NUM_THREADS=1, **env))


def _cpu_config(tmp_path):
    config = tmp_path / "accelerator-config.yaml"
    config.write_text("backend: cpu\n")
    return str(config)


def test_cpu_processes_run_every_test_and_the_gloo_all_reduce(tmp_path):
    results = tmp_path / "results"
    proc = _preflight(tmp_path, "preflight", "--json", "--config", _cpu_config(tmp_path),
                      "--nproc-per-node", "2", "--master-port", str(rendezvous_port()),
                      "--python", PYTHON, "--results", str(results))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "anygpu.preflight/v1"
    assert [d["id"] for d in doc["devices"]] == ["cpu:0", "cpu:1"]
    for d in doc["devices"]:
        assert d["verdict"] == "ok" and d["pci_bus_id"] is None, d
        tests = {t["name"]: t for t in d["tests"]}
        assert list(tests) == TESTS, d
        assert tests["matmul"]["status"] == "measured" and tests["matmul"]["value"] > 0
        assert tests["matmul"]["unit"] == "TFLOPS" and "expected" not in tests["matmul"]
        assert tests["memory_pattern"] == {"name": "memory_pattern", "value": 0,
                                           "unit": "bad reads", "status": "pass",
                                           "detail": tests["memory_pattern"]["detail"]}
        assert tests["memory_bandwidth"]["status"] == "measured"
        assert tests["memory_bandwidth"]["value"] > 0
        assert tests["host_device_copy"]["status"] == "skipped"
        assert tests["all_reduce"]["status"] == "pass", tests["all_reduce"]
        assert tests["all_reduce"]["detail"].startswith("gloo, 2 processes")
    # --results keeps what each process wrote; the launch left nothing else behind.
    assert sorted(os.listdir(results)) == ["rank-0.json", "rank-1.json"]
    ranks = [json.loads((results / f"rank-{r}.json").read_text()) for r in (0, 1)]
    assert [r["world_size"] for r in ranks] == [2, 2]
    import torch
    assert {r["torch"] for r in ranks} == {torch.__version__}

    # The human form: one line per device, one per test.
    proc = _preflight(tmp_path, "preflight", "--config", _cpu_config(tmp_path), "--python",
                      PYTHON)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "cpu:0  CPU  ok", proc.stdout
    assert [line.split()[0] for line in lines[1:]] == TESTS, proc.stdout
    assert "one process: nothing to reduce across" in lines[-1]


def _bus_ids(root):
    proc = subprocess.run([BINARY, "--root", root, "--no-libs", "detect", "--json"],
                          capture_output=True, text=True, check=True)
    return [d["pci"]["bus_id"] for d in json.loads(proc.stdout)["devices"]]


def test_fixture_host_skips_held_and_simulated_devices(tmp_path):
    root = host("h100-8x")
    first, second = _bus_ids(root)[:2]
    locks = tmp_path / "locks"
    locks.mkdir(mode=0o700)
    env = clean_env(ANYGPU_LOCK_DIR=locks)
    holder = subprocess.Popen([BINARY, "--root", root, "--no-libs", "run", "--devices",
                               first + ",", "--", "sleep", "60"], env=env, cwd=tmp_path,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while not any(locks.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # the lock is taken just after the file exists
        proc = _preflight(tmp_path, "--root", root, "--no-libs", "preflight", "--json",
                          "--devices", f"{first},{second}", "--python", PYTHON,
                          ANYGPU_LOCK_DIR=locks)
    finally:
        os.killpg(holder.pid, 9)
        holder.wait()
    assert proc.returncode == 3, proc.stdout + proc.stderr
    devices = json.loads(proc.stdout)["devices"]
    assert [d["pci_bus_id"] for d in devices] == [first, second]
    assert devices[0]["verdict"] == "skipped" and devices[0]["tests"] == []
    assert devices[0]["reason"].startswith("held by another run, pid "), devices[0]
    assert devices[0]["name"] == "NVIDIA H100 80GB HBM3"
    assert devices[1]["verdict"] == "skipped" and devices[1]["tests"] == [], devices[1]
    assert devices[1]["reason"] == "a replayed host (--root): its devices exist only in the tree"
    # Nothing was launched for them: a replayed host answers at once.
    assert "torch.distributed" not in proc.stderr


def test_hung_test_process_is_stopped_at_the_timeout(tmp_path):
    # An interpreter whose torchrun never starts a worker: preflight stops it at --timeout.
    fake = tmp_path / "bin" / "python3"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n"
                    "case \"$*\" in *torch.distributed.run*) exec sleep 300;; esac\n"
                    f"exec {PYTHON} \"$@\"\n")
    fake.chmod(0o755)
    began = time.monotonic()
    proc = _preflight(tmp_path, "preflight", "--json", "--config", _cpu_config(tmp_path),
                      "--python", str(fake), "--timeout", "10", timeout=60)
    took = time.monotonic() - began
    assert proc.returncode == 1, proc.stdout + proc.stderr
    device = json.loads(proc.stdout)["devices"][0]
    assert device["verdict"] == "fail"
    assert device["reason"] == "its process wrote no result (stopped after the --timeout of 10 s)"
    assert took < 30, took


def test_bad_input_is_refused_before_launch(tmp_path):
    proc = _preflight(tmp_path, "preflight", "--timeout", "5")
    assert proc.returncode == 2
    assert "--timeout '5': expected a whole number in 10..86400" in proc.stderr
    results = tmp_path / "kept"
    results.mkdir()
    (results / "rank-0.json").write_text("{}")
    proc = _preflight(tmp_path, "preflight", "--config", _cpu_config(tmp_path), "--results",
                      str(results))
    assert proc.returncode == 2
    assert "already holds results (rank-0.json)" in proc.stderr
    proc = _preflight(tmp_path, "preflight", "--nproc-per-node", "0")
    assert proc.returncode == 2 and "--nproc-per-node '0'" in proc.stderr


# Run in each of two processes: rank 1's clock runs 50 times faster than rank 0's, as on a
# device that finishes its calls much sooner. A collective loop that stops on each rank's own
# clock makes rank 1 leave after fewer all-reduces than rank 0 enters, and rank 0 waits forever.
_SKEWED_CLOCK = r"""
import json, sys, time, types
import torch
from anygpu.torch import preflight
from anygpu.torch._distributed import init_distributed, leave
rank = int(sys.argv[1])
scale = 50.0 if rank == 1 else 1.0
real = time.perf_counter
preflight.time = types.SimpleNamespace(perf_counter=lambda: real() * scale)
init_distributed(timeout=__import__("datetime").timedelta(seconds=60))
result = preflight.all_reduce(torch.device("cpu"), 2)
torch.distributed.barrier()
leave()
print(json.dumps(result))
"""


def test_ranks_whose_clocks_disagree_still_make_the_same_collective_calls(tmp_path):
    port = rendezvous_port()
    procs = [subprocess.Popen(
        [PYTHON, "-c", _SKEWED_CLOCK, str(rank)], cwd=tmp_path, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=clean_env(OMP_NUM_THREADS=1, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE="2",
                      LOCAL_WORLD_SIZE="2", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                      ANYGPU_BACKEND="cpu", ANYGPU_VENDOR="cpu", ANYGPU_TORCH_DEVICE="cpu",
                      ANYGPU_DEVICES="", ANYGPU_NUM_WORKERS="2", ANYGPU_DIST_BACKEND="gloo"))
             for rank in (0, 1)]
    outputs = []
    try:
        for p in procs:
            out, err = p.communicate(timeout=90)
            assert p.returncode == 0, out + err
            outputs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for result in outputs:
        assert result["status"] == "pass", result
        assert result["detail"].startswith("gloo, 2 processes"), result
