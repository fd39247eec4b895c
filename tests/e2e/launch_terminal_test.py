#!/usr/bin/python3
"""`anygpu run --nproc-per-node` at a terminal: anygpu stays torchrun's parent, so torchrun's
process group must get the terminal for the launch to behave as an exec'd one would. On a
pseudo-terminal (this script plays the shell): a rank reads a line typed at the terminal (in a
background group it would be stopped by SIGTTIN instead), ^Z stops the launch and anygpu with
it, continuing anygpu continues the launch with the terminal, and ^C ends it with anygpu
dying of SIGINT as the launch did. A stand-in torchrun on PATH keeps this fast.

usage: launch_terminal_test.py ANYGPU FIXTURE_HOSTS
"""

import os
import pty
import select
import signal
import sys
import tempfile
import time

FAILS = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILS.append(what)
        if detail:
            print("     " + detail.replace("\n", "\n     "))


def read_until(fd, text, timeout=20.0):
    got = b""
    end = time.monotonic() + timeout
    while text not in got and time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            got += chunk
    return got


def wait_stopped_or_ended(pid, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, status = os.waitpid(pid, os.WNOHANG | os.WUNTRACED)
        if r == pid:
            return status
        time.sleep(0.02)
    return None


def main():
    anygpu, hosts = sys.argv[1], sys.argv[2]
    tmp = tempfile.mkdtemp()
    bindir = os.path.join(tmp, "bin")
    os.mkdir(bindir)
    torchrun = os.path.join(bindir, "torchrun")
    with open(torchrun, "w") as f:
        # Echoes every line typed at the terminal; the round number tells the lines apart.
        f.write("#!/bin/sh\necho ready\nwhile read line; do echo \"got $line\"; done\n")
    os.chmod(torchrun, 0o755)
    env = dict(os.environ, PATH=bindir + ":" + os.environ.get("PATH", "/usr/bin:/bin"))
    argv = [anygpu, "--root", os.path.join(hosts, "cloud-vm-none"), "--no-libs", "run",
            "--no-check", "--nproc-per-node", "1", "--", "worker"]

    pid, master = pty.fork()
    if pid == 0:  # the pty's session leader, in its foreground group, like a shell's job
        os.execve(anygpu, argv, env)
    out = read_until(master, b"ready")
    check(b"ready" in out, "torchrun started at the terminal", out.decode(errors="replace"))

    os.write(master, b"first\n")
    out = read_until(master, b"got first")
    check(b"got first" in out, "a line typed at the terminal reaches torchrun",
          out.decode(errors="replace"))

    os.write(master, b"\x1a")  # ^Z
    status = wait_stopped_or_ended(pid)
    check(status is not None and os.WIFSTOPPED(status), "^Z stops the launch and anygpu",
          f"status {status}")

    os.kill(pid, signal.SIGCONT)  # fg
    time.sleep(0.3)
    os.write(master, b"second\n")
    out = read_until(master, b"got second")
    check(b"got second" in out, "continued, torchrun has the terminal again",
          out.decode(errors="replace"))

    os.write(master, b"\x03")  # ^C
    status = wait_stopped_or_ended(pid)
    check(status is not None and os.WIFSIGNALED(status) and
          os.WTERMSIG(status) == signal.SIGINT,
          "^C ends the launch, and anygpu dies of SIGINT as torchrun did", f"status {status}")
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    os.close(master)
    print(f"{len(FAILS)} failed" if FAILS else "all passed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
