"""A TCP port for a rendezvous server that starts later (torchrun's store, a PyTorchJob master).

Not an ephemeral port (bind to port 0): until the server listens, the kernel may hand that port
to any outgoing connection as its source port, and a client connecting to localhost:P from
source port P connects to itself (TCP simultaneous open) and waits on itself forever; other
tests' listeners on port 0 can take it too. A port below the ephemeral range, free now, has
neither race.
"""

import random
import socket


def _ephemeral_low() -> int:
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def rendezvous_port() -> int:
    low = min(_ephemeral_low(), 32768)
    for _ in range(200):
        port = random.randrange(20000, low)
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and the ephemeral range")
