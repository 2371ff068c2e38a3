"""Replay viewer benchmark (issue 11): the replay page and the record export of a ~2,000-ply match, on PostgreSQL.

Plays one four-seat pagat match between house bots through the services (``match_advance``: every ply stored as in
production) with the target raised until it has at least ``--plies`` plies, then times, with Django's test client
(the whole middleware stack and the template, no network): ``GET /matches/<id>/replay/`` (its frames built from
one snapshot by the engine), the frames alone (``selectors.match_replay``), and ``GET /api/matches/<id>/record/``.
Prints medians of ``--runs`` runs, the page's size (plain, and gzipped as the view sends it), and the frames' size
against full per-ply positions. Uses its own database ``eights_bench_replay`` (created when missing; the match is
played once and reused).

Usage: ``python benchmarks/replay_bench.py [--plies 2000] [--runs 15] [--browser]``; needs PostgreSQL on 127.0.0.1 (or
DATABASE_URL).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/eights_bench_replay")
os.environ.pop("CELERY_BROKER_URL", None)  # the match is played in-process
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
os.environ.setdefault("LOG_LEVEL", "WARNING")


def _long_match(plies: int):
    """A finished stored match of at least ``plies`` plies (played once; found again on later runs)."""
    from eights_engine import Ruleset
    from games.models import Match, Player
    from games.services import match_advance, match_create, player_house_create

    found = Match.objects.filter(status=Match.Status.FINISHED, ply_count__gte=plies, preset="pagat",
                                 seat_count=4).order_by("ply_count").first()
    if found:
        return found
    bots = []
    for name, strategy in (("bench-heuristic", "heuristic"), ("bench-random", "random"), ("bench-greedy", "greedy"),
                           ("bench-eager", "eager")):
        bots.append(Player.objects.filter(name=name).first() or player_house_create(name=name, strategy=strategy))
    target = max(100, int(plies * 0.75))
    while True:
        match = match_create(players=bots, ruleset=Ruleset.preset("pagat", target=target), preset="pagat", seed=1)
        started = time.perf_counter()
        while match_advance(match_id=match.pk) != "finished":
            pass
        match.refresh_from_db()
        print(f"played match {match.pk}: {match.ply_count} plies, {match.deal_number} deals, target {target} "
              f"({time.perf_counter() - started:.1f} s)", file=sys.stderr)
        if match.ply_count >= plies:
            return match
        target = int(target * plies / match.ply_count * 1.05) + 1


def _median_ms(fn, runs: int) -> tuple[float, float, object]:
    """Median wall time and median CPU time of this process (ms; PostgreSQL's own work is in the wall time only,
    and the CPU time is steadier on a loaded machine) of ``runs`` calls, and the last result."""
    wall, cpu, result = [], [], None
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--plies", type=int, default=2000, help="at least this many plies (default 2000)")
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each request (default 15)")
    parser.add_argument("--browser", action="store_true",
                        help="also time static/js/replay.js decoding every deal in Chromium (Playwright, /usr/bin/chromium)")
    args = parser.parse_args()
    if args.plies < 1 or args.runs < 1:
        parser.error("--plies and --runs must be at least 1")
    from benchmarks.db import database_ready  # not service_bench: its import would set a broker

    database_ready()
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from games.api import MatchRecordApi
    from eights_engine.frames import positions
    from games.match_pages import match_replay

    MatchRecordApi.throttle_classes = []  # timed many times a minute from one address: the limit is not measured

    match = _long_match(args.plies)
    client = Client()
    page_url, record_url = f"/matches/{match.pk}/replay/", f"/api/matches/{match.pk}/record/"
    client.get(page_url)  # warm: templates, static manifest, connections
    page_ms, page_cpu, page = _median_ms(lambda: client.get(page_url), args.runs)
    gzip_ms, gzip_cpu, zipped = _median_ms(lambda: client.get(page_url, HTTP_ACCEPT_ENCODING="gzip"), args.runs)
    assert zipped["Content-Encoding"] == "gzip"
    frames_ms, frames_cpu, frames = _median_ms(lambda: match_replay(match=match), args.runs)
    record_ms, record_cpu, record = _median_ms(lambda: client.get(record_url), args.runs)
    assert page.status_code == 200 and record.status_code == 200
    with CaptureQueriesContext(connection) as queries:
        client.get(page_url)
    frames_json = json.dumps(frames, separators=(",", ":")).encode()
    full_json = json.dumps([positions(d) for d in frames["deals"]], separators=(",", ":")).encode()
    kib = 1024
    print(f"replay benchmark: match {match.pk}, 4 seats pagat, {match.ply_count} plies in {match.deal_number} deals, "
          f"PostgreSQL, Django test client, median of {args.runs}")
    load = os.getloadavg()[0]
    print(f"  (load average {load:.1f} on {os.cpu_count()} cores; wall ms / CPU ms of this process)")
    print(f"  GET {page_url:<36} {page_ms:7.1f} / {page_cpu:6.1f} ms  {len(page.content) / kib:6.1f} KiB, "
          f"{len(queries)} queries")
    print(f"  the same with Accept-Encoding: gzip {gzip_ms:11.1f} / {gzip_cpu:6.1f} ms  {len(zipped.content) / kib:6.1f} KiB sent")
    print(f"  its frames (selectors.match_replay) {frames_ms:11.1f} / {frames_cpu:6.1f} ms")
    print(f"  GET {record_url:<36} {record_ms:7.1f} / {record_cpu:6.1f} ms  {len(record.content) / kib:6.1f} KiB "
          f"({len(gzip.compress(record.content)) / kib:.1f} KiB gzipped)")
    print(f"  frames as deltas: {len(frames_json) / kib:.1f} KiB ({len(frames_json) / match.ply_count:.0f} B a ply); "
          f"as full per-ply positions: {len(full_json) / kib:.1f} KiB ({len(full_json) / match.ply_count:.0f} B a ply, "
          f"{len(full_json) / len(frames_json):.1f}x)")

    if args.browser:
        _browser_decode(frames, args.runs)


def _browser_decode(frames: dict, runs: int) -> None:
    """Median time of the page's own decoder (``EightsReplay.decode``) over every deal, in Chromium."""
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, os.path.join(ROOT, "tests", "support"))
    from browsers import ARGS, CHROMIUM

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.goto("about:blank")
        page.add_script_tag(path=os.path.join(ROOT, "static", "js", "replay.js"))
        ms = page.evaluate("""([deals, runs]) => {
            const times = [];
            for (let i = 0; i < runs; i++) {
                const t = performance.now();
                deals.forEach(d => window.EightsReplay.decode(d));
                times.push(performance.now() - t);
            }
            times.sort((a, b) => a - b);
            return times[Math.floor(times.length / 2)];
        }""", [frames["deals"], runs])
        browser.close()
    print(f"  Chromium: replay.js decodes every deal into its positions in {ms:.1f} ms (the page decodes one deal "
          "when it is first shown)")


if __name__ == "__main__":
    main()
