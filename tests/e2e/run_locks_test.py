#!/usr/bin/env python3
"""`anygpu run` device locks with the real binary on the 8-GPU fixture (docs/run.md, "Device
locks"): 100 concurrent runs of 2 devices each never share a device while they overlap and all
succeed with --wait; without --wait a refusal (exit 124) names the holder; a listed device is
refused, not swapped; a holder killed with SIGKILL releases at once; the lock is held by the
exec'd command itself; `ps` lists the holders; --no-lock opts out; an unsafe lock directory is
refused. Every run locks in a private directory (ANYGPU_LOCK_DIR)."""
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

BIN, HOSTS = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
HOST = os.path.join(HOSTS, "h100-8x")
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(name)


def anygpu(*args, env=None):
    return [BIN, "--root", HOST, "--no-libs", *args]


def start(args, env, **kw):
    return subprocess.Popen([BIN, "--root", HOST, "--no-libs", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def wait_for(path, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return True
        time.sleep(0.02)
    return False


def overlapping_shares(records):
    """Pairs of runs whose recorded intervals overlap and that got a common device."""
    bad = []
    for i, a in enumerate(records):
        for b in records[i + 1:]:
            if a["start"] < b["end"] and b["start"] < a["end"] and set(a["devices"]) & set(b["devices"]):
                bad.append((a, b))
    return bad


def main():
    tmp = tempfile.mkdtemp()
    locks = os.path.join(tmp, "locks")
    os.mkdir(locks, 0o700)
    env = dict(os.environ, ANYGPU_LOCK_DIR=locks)
    two = os.path.join(tmp, "two.yaml")
    with open(two, "w") as f:
        f.write("devices: 2\n")
    # The command records when it ran (after anygpu locked, before it releases) and what it got.
    holder = os.path.join(tmp, "hold.sh")
    with open(holder, "w") as f:
        f.write('#!/bin/sh\ns=$(date +%s%N)\nsleep "$1"\ne=$(date +%s%N)\n'
                'echo "$s $e $ANYGPU_DEVICES" >"$2"\n')
    os.chmod(holder, 0o755)

    # 100 concurrent runs of 2 devices each, queueing with --wait.
    procs = []
    for i in range(100):
        out = os.path.join(tmp, f"run{i}")
        hold = f"{random.uniform(0.01, 0.08):.3f}"  # seconds the devices are held
        procs.append((out, start(["run", "--no-check", "--wait=120", "--config", two, "--",
                                  holder, hold, out], env)))
    records, codes = [], []
    for out, p in procs:
        _, err = p.communicate(timeout=300)
        codes.append(p.returncode)
        if p.returncode == 0:
            s, e, devs = open(out).read().split()
            records.append({"start": int(s), "end": int(e), "devices": devs.split(",")})
        else:
            print(err)
    check("100 runs with --wait all succeed", codes.count(0) == 100, codes)
    check("each run got 2 devices", all(len(r["devices"]) == 2 for r in records))
    bad = overlapping_shares(records)
    check("no two overlapping runs share a device", not bad, bad[:3])
    pairs = {tuple(r["devices"]) for r in records}
    check("runs were spread over other devices", len(pairs) > 1, pairs)

    # Without --wait: a holder of all 8 GPUs; refusals name it.
    ready = os.path.join(tmp, "all-ready")
    big = start(["run", "--no-check", "--", "/bin/sh", "-c", f'echo x >{ready}; exec sleep 30'], env)
    check("a holder of every GPU started", wait_for(ready))
    refused = [subprocess.run(anygpu("run", "--no-check", "--config", two, "--", "true", env=env),
                              env=env, capture_output=True, text=True) for _ in range(3)]
    check("refused without --wait: exit 124", all(r.returncode == 124 for r in refused),
          [r.returncode for r in refused])
    msg = refused[0].stderr
    check("the refusal names the holder's pid and command",
          f"pid {big.pid} (sleep)" in msg and "0000:18:00.0" in msg, msg)

    # The lock is held by the exec'd command itself: ps lists it with the command's pid.
    ps = subprocess.run([BIN, "--no-libs", "--json", "ps"], env=env, capture_output=True,
                        text=True)
    doc = json.loads(ps.stdout) if ps.returncode == 0 else {}
    held = {l["device"]: l.get("pid") for l in doc.get("locks", [])}
    check("ps lists the 8 locks held by the command's pid",
          len(held) == 8 and set(held.values()) == {big.pid}, ps.stdout[-400:] + ps.stderr)
    text = subprocess.run([BIN, "--no-libs", "ps"], env=env, capture_output=True, text=True).stdout
    check("ps text shows the holders", "LOCKED BY anygpu run" in text and str(big.pid) in text,
          text)

    timed = time.time()
    r = subprocess.run(anygpu("run", "--no-check", "--wait=0.5", "--config", two, "--", "true",
                              env=env), env=env, capture_output=True, text=True)
    check("--wait=0.5 runs out: exit 124 after about 0.5 s",
          r.returncode == 124 and 0.4 < time.time() - timed < 10 and "waited" in r.stderr,
          (r.returncode, r.stderr))
    r = subprocess.run(anygpu("run", "--no-check", "--no-lock", "--config", two, "--", "true",
                              env=env), env=env, capture_output=True, text=True)
    check("--no-lock runs beside the holder", r.returncode == 0, r.stderr)

    # SIGKILL releases at once: a waiting run gets the devices.
    waiter = start(["run", "--no-check", "--wait=30", "--config", two, "--", "true"], env)
    time.sleep(0.3)
    check("the waiter is still waiting", waiter.poll() is None)
    big.send_signal(signal.SIGKILL)
    big.wait()
    t = time.time()
    waiter.communicate(timeout=30)
    check("after kill -9 of the holder the waiter runs at once",
          waiter.returncode == 0 and time.time() - t < 5, waiter.returncode)

    # An explicit list is refused, never swapped; another list beside it runs.
    listed = os.path.join(tmp, "listed.yaml")
    with open(listed, "w") as f:
        f.write("devices: [0, 3]\n")
    ready = os.path.join(tmp, "listed-ready")
    hold = start(["run", "--no-check", "--config", listed, "--", "/bin/sh", "-c",
                  f"echo x >{ready}; exec sleep 30"], env)
    check("a holder of devices [0, 3] started", wait_for(ready))
    clash = os.path.join(tmp, "clash.yaml")
    with open(clash, "w") as f:
        f.write("devices: [0, 1]\n")
    r = subprocess.run(anygpu("run", "--no-check", "--config", clash, "--", "env", env=env),
                       env=env, capture_output=True, text=True)
    check("a listed device held elsewhere is refused, not swapped",
          r.returncode == 124 and "listed devices" in r.stderr and "0000:18:00.0" in r.stderr
          and f"pid {hold.pid}" in r.stderr, (r.returncode, r.stderr))
    free = os.path.join(tmp, "free.yaml")
    with open(free, "w") as f:
        f.write("devices: [1, 2]\n")
    r = subprocess.run(anygpu("run", "--no-check", "--config", free, "--", "env", env=env),
                       env=env, capture_output=True, text=True)
    check("other listed devices run beside it",
          r.returncode == 0 and "CUDA_VISIBLE_DEVICES=1,2" in r.stdout, r.stderr)
    # select neither locks nor avoids; -v names what is held.
    r = subprocess.run(anygpu("-v", "select", "--config", two, env=env), env=env,
                       capture_output=True, text=True)
    check("select -v names the locked devices",
          r.returncode == 0 and "locked by a run: 0000:18:00.0" in r.stderr, r.stderr)
    hold.kill()
    hold.wait()

    # Without --wait, concurrent runs either run or are refused naming a holder; the ones that
    # ran never overlapped on a device.
    procs = []
    for i in range(20):
        out = os.path.join(tmp, f"nowait{i}")
        procs.append((out, start(["run", "--no-check", "--config", two, "--", holder, "0.2", out],
                                 env)))
    records, refusals = [], 0
    for out, p in procs:
        _, err = p.communicate(timeout=120)
        if p.returncode == 0:
            s, e, devs = open(out).read().split()
            records.append({"start": int(s), "end": int(e), "devices": devs.split(",")})
        elif p.returncode == 124 and "held by other runs" in err and " by pid " in err:
            refusals += 1
        else:
            check("a run without --wait ran or was refused naming the holder", False,
                  (p.returncode, err))
    check("without --wait: some ran, the rest were refused", records and refusals and
          len(records) + refusals == 20, (len(records), refusals))
    check("without --wait: no two overlapping runs share a device", not overlapping_shares(records))

    # An unsafe lock directory is refused (exit 125), never used.
    loose = os.path.join(tmp, "loose")
    os.mkdir(loose)
    os.chmod(loose, 0o777)
    r = subprocess.run(anygpu("run", "--no-check", "--", "true", env=env),
                       env=dict(env, ANYGPU_LOCK_DIR=loose), capture_output=True, text=True)
    check("a world-writable lock directory is refused",
          r.returncode == 125 and "writable by others" in r.stderr, (r.returncode, r.stderr))
    link = os.path.join(tmp, "link")
    os.symlink(locks, link)
    r = subprocess.run(anygpu("run", "--no-check", "--", "true", env=env),
                       env=dict(env, ANYGPU_LOCK_DIR=link), capture_output=True, text=True)
    check("a symlinked lock directory is refused",
          r.returncode == 125 and "symbolic link" in r.stderr, (r.returncode, r.stderr))
    subprocess.run(["rm", "-rf", tmp])
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
