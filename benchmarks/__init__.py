"""Benchmarks and load trials (BENCHMARKS.md quotes them); shared helpers."""

import socket


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now (the OS's choice), for a server a benchmark starts."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
