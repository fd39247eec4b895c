"""`anygpu run --debug-hangs`: a real 2-process gloo job whose rank 1 sleeps inside its loop is
reported (rank 1 first, within twice the threshold), its stacks show the sleeping frame, and
no process of the launch outlives the test. Without the option anygpu.torch adds nothing."""
import json
import os
import signal
import subprocess
import time

from conftest import BINARY, PYTHON, REPO, clean_env, rendezvous_port, run_python

HERE = os.path.dirname(os.path.abspath(__file__))
THRESHOLD = 3


def _session_pids(sid: int):
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":  # session id, state
            pids.append(int(entry))
    return pids


def _wait_for(path, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(path):
            return True
        time.sleep(0.1)
    return False


def test_sleeping_rank_is_reported_and_nothing_survives(tmp_path):
    config = tmp_path / "accelerator-config.yaml"
    config.write_text("backend: cpu\n")
    hang_dir, marker = tmp_path / "hangs", tmp_path / "sleeping"
    argv = [BINARY, "run", "--config", str(config), "--nproc-per-node", "2", "--master-port",
            str(rendezvous_port()), f"--debug-hangs={THRESHOLD}", "--hang-dir", str(hang_dir),
            "--", PYTHON, os.path.join(HERE, "hang_worker.py"), str(marker)]
    proc = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                            env=clean_env(PYTHONPATH=os.pathsep.join([os.path.join(REPO, "python"),
                                                                     HERE])))
    try:
        assert _wait_for(marker, 120), "rank 1 never reached its sleep"
        slept_at = float(marker.read_text())
        report = hang_dir / "hang-report.json"
        assert _wait_for(report, 2 * THRESHOLD + 5), "no hang report"
        time.sleep(0.2)  # the text report is written just before the JSON
        found = json.loads(report.read_text())
        assert report.stat().st_mtime - slept_at <= 2 * THRESHOLD, found
        assert found["hang"] and found["first"]["rank"] == 1, found
        assert found["first"]["device"] == "cpu"
        ranks = {r["rank"]: r for r in found["ranks"]}
        assert ranks[0]["last_collective"] == ranks[1]["last_collective"] == "reduce"
        assert ranks[0]["event"] == "enter"  # rank 0 waits inside the next reduce
        stacks = (hang_dir / "stacks-rank-1.txt").read_text()
        assert "sleep_inside_loop" in stacks, stacks
        assert "hang_worker.py" in (hang_dir / "stacks-rank-0.txt").read_text()
        # The post-mortem reader agrees, exit 1 for a hang.
        cli = subprocess.run([BINARY, "--json", "hang-report", str(hang_dir)],
                             capture_output=True, text=True, timeout=30)
        assert cli.returncode == 1, cli.stderr
        assert json.loads(cli.stdout)["first"]["rank"] == 1
        text = subprocess.run([BINARY, "hang-report", str(hang_dir)], capture_output=True,
                              text=True, timeout=30)
        assert text.stdout.startswith("hang: rank 1 (device cpu"), text.stdout
        rank_pids = [r["pid"] for r in found["ranks"]]
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGTERM)  # anygpu forwards it and ends the whole tree
        try:
            out, _ = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            raise
    assert "anygpu: hang: rank 1" in out, out
    assert _session_pids(proc.pid) == [], "processes of the launch survived it"
    for pid in rank_pids:
        assert not os.path.exists(f"/proc/{pid}"), f"rank pid {pid} survived"


def test_unwritable_hang_dir_is_refused_before_launch(tmp_path):
    # /proc is a directory nobody, root included, can create files in.
    proc = subprocess.run([BINARY, "run", "--nproc-per-node", "1", "--debug-hangs",
                           "--hang-dir", "/proc", "--", "true"], capture_output=True,
                          text=True, timeout=60, env=clean_env(), cwd=tmp_path)
    assert proc.returncode == 125, proc.stderr
    assert "--hang-dir /proc: not writable" in proc.stderr
    proc = subprocess.run([BINARY, "run", "--debug-hangs", "--", "true"], capture_output=True,
                          text=True, timeout=60, env=clean_env(), cwd=tmp_path)
    assert proc.returncode == 125 and "needs --nproc-per-node" in proc.stderr, proc.stderr
    assert not (tmp_path / "anygpu-hangs").exists()  # refused before anything was made


def test_without_the_option_nothing_is_wrapped():
    out = run_python("import anygpu.torch._collectives as c, anygpu.torch._optim as o\n"
                     "print(hasattr(c.reduce, '__wrapped__'), hasattr(o.step, '__wrapped__'))")
    assert out.stdout.strip() == "False False"
    out = run_python("import anygpu.torch._collectives as c\n"
                     "print(hasattr(c.reduce, '__wrapped__'))", ANYGPU_HANG_DIR="/tmp")
    assert out.stdout.strip() == "True"
