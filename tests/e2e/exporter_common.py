"""Shared by the exporter end-to-end tests: start `anygpu exporter`, talk raw HTTP to it."""

import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

LISTENING = re.compile(r"listening on http://(\S+)")


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def check(cond, message):
    if not cond:
        fail(message)


def require_tool(name):
    path = shutil.which(name)
    check(path is not None, f"{name} is required (make test installs it)")
    return path


def copy_fixture(src, dest):
    shutil.copytree(src, dest, symlinks=True)
    return dest


class Exporter:
    """`anygpu [global] exporter --listen 127.0.0.1:0 …`; address() once it listens."""

    def __init__(self, binary, global_args=(), args=(), env=None, wrapper=()):
        """`wrapper` runs the exporter through another command (setpriv with fewer privileges)."""
        cmd = [*wrapper, binary, *global_args, "exporter", "--listen", "127.0.0.1:0", *args]
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     env=env)
        self.stderr = ""
        self.host, self.port = self._wait_listening(30)

    def _wait_listening(self, timeout):
        deadline = time.monotonic() + timeout
        fd = self.proc.stderr.fileno()
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.2)
            if ready:
                chunk = os.read(fd, 4096).decode(errors="replace")
                if not chunk:
                    break
                self.stderr += chunk
                m = LISTENING.search(self.stderr)
                if m:
                    host, _, port = m.group(1).rpartition(":")
                    return host, int(port)
        self.proc.kill()
        fail(f"exporter did not report its address; stderr:\n{self.stderr}")

    @property
    def pid(self):
        return self.proc.pid

    def url(self, path="/metrics"):
        return f"http://{self.host}:{self.port}{path}"

    def rss_kib(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        fail("no VmRSS")

    def cpu_seconds(self):
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        ticks = os.sysconf("SC_CLK_TCK")
        return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

    def rest_of_stderr(self):
        """What the exporter wrote on stderr after it listened; call once it has exited."""
        return self.stderr + self.proc.stderr.read().decode(errors="replace")

    def terminate(self, timeout=10):
        """SIGTERM; returns the exit status (None if it had to be killed)."""
        if self.proc.poll() is not None:
            return self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None


def connect(port, timeout=10):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def read_response(sock, head_only=False):
    """One response: (status, {field: value}, body); (None, {}, b"") if closed first."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            return None, {}, buf
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    length = 0 if head_only else int(fields.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, fields, rest[:length]


def request(port, raw, head_only=False, timeout=10):
    """Sends raw bytes on a new connection and reads one response."""
    with connect(port, timeout) as s:
        s.sendall(raw)
        return read_response(s, head_only)


def get(port, path="/metrics", method="GET"):
    raw = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()
    return request(port, raw, head_only=(method == "HEAD"))


def closed_within(sock, seconds):
    """True when the peer closes (EOF or reset) within `seconds`; data before it is ignored."""
    deadline = time.monotonic() + seconds
    sock.setblocking(False)
    while time.monotonic() < deadline:
        ready, _, _ = select.select([sock], [], [], 0.1)
        if ready:
            try:
                if not sock.recv(65536):
                    return True
            except ConnectionResetError:
                return True
    return False


def parse_samples(text):
    """Prometheus text format → {(name, frozenset(labels)): value} (simple, for our output)."""
    pattern = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$')
    label_re = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = pattern.match(line)
        check(m is not None, f"unparsable sample line: {line!r}")
        labels = frozenset(label_re.findall(m.group(3) or ""))
        out[(m.group(1), labels)] = float(m.group(4))
    return out


def values(samples, name, **labels):
    """The values of every series `name` whose labels include `labels`."""
    want = set(labels.items())
    return [v for (n, ls), v in samples.items() if n == name and want <= set(ls)]


def write_atomic(path, text):
    """Replaces a file another process reads, never showing it half-written."""
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.rename(path + ".tmp", path)


def nvml_metric_rows(util):
    """Lines for the metrics mock NVML (tests/mocklibs/nvml_metrics.cc) for 8 GPUs:
    index, utilisation %, temperature, power mW, energy mJ, then clocks in MHz."""
    return "".join(f"{i} {util + i} {40 + i} {300000 + i} {1000000 + i} 1980 1980 2619\n"
                   for i in range(8))


def temp_dir(prefix):
    return tempfile.mkdtemp(prefix=prefix)
