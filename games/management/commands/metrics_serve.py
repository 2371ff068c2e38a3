"""``manage.py metrics_serve``: serve this machine's per-process metrics where no web server runs (a machine of
Celery workers only): the counters and histograms every process of the deployment on this machine writes to
``PROMETHEUS_MULTIPROC_DIR`` (bot call latency, bot faults by kind; request latency where web processes run), in
Prometheus text format on ``--bind``:``--port`` (loopback by default: the exporter has no login of its own; reach it
through the machine's own agent or a private network). The figures shared by every machine (matches running, plies
stored, queue lengths) are read from any web server's ``/metrics`` instead. docs/SCALING.md, "Watching it"."""

from __future__ import annotations

import ipaddress
import os
import time

from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Serve this machine's per-process metrics (PROMETHEUS_MULTIPROC_DIR) in Prometheus format."

    def add_arguments(self, parser):
        parser.add_argument("--bind", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
        parser.add_argument("--port", type=int, default=9808, help="port to listen on (default 9808)")

    def handle(self, *args, bind: str, port: int, **options):
        from prometheus_client import CollectorRegistry, multiprocess, start_http_server

        from games.operations import metrics  # noqa: F401 (sets PROMETHEUS_MULTIPROC_DIR from the settings)

        try:
            ipaddress.ip_address(bind)
        except ValueError:
            raise CommandError(f"--bind {bind[:40]!r}: give an IP address, e.g. 127.0.0.1") from None
        if not 1 <= port <= 65535:
            raise CommandError(f"--port {port}: give a port from 1 to 65535")
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        start_http_server(port, addr=bind, registry=registry)
        self.stdout.write(f"serving {os.environ['PROMETHEUS_MULTIPROC_DIR']} on http://{bind}:{port}/metrics",
                          ending="\n")
        self.stdout.flush()
        while True:
            time.sleep(3600)
