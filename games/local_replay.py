"""A match record opened in the replay viewer, never stored (issue 26, item 5): ``/replay/open/``.

A record file from anywhere: downloaded from a match page (``GET /api/matches/<id>/record/``), exported by
``manage.py export_matches`` (NDJSON, one record per line), or written by ``localrun --record`` on an author's own
machine. The page takes it uploaded or pasted, replays it with the engine (``eights_engine.record.verify_record``:
every ply legal, every stored result right) and shows it in the same viewer as a service match
(``templates/games/replay.html``, ``static/js/replay.js``), with the think times and faults a local record
carries. Nothing is kept: the record lives in the one request. The work is the engine's alone (no outbound call,
no database), bounded by ``MAX_RECORD_BYTES`` and by a budget per address (``RecordOpenThrottle``).

The analysis on request (the form's "Analyse it"): the record, once it replays, goes in the message of an
``analyse_record`` task to a worker of the house queue (seconds of CPU: never in the request), which weighs every
decision as a finished match's analysis does (``eights_engine.analysis.analyse``) and keeps only the answer in the
cache for ``ANALYSIS_KEEP_SECONDS`` under a 256-bit random key that only the page that asked knows
(``record_analysis_status``, polled by static/js/replay.js). The record itself is stored nowhere. Records of more
than ``MAX_ANALYSIS_PLIES`` plies are not analysed; a budget per address (``RECORD_ANALYSIS_RATE``) bounds the rest.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import time

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.gzip import gzip_page

from eights_engine import referee
from eights_engine.analysis import analyse
from eights_engine.frames import replay_frames
from eights_engine.match import ReplayMismatch
from eights_engine.record import verify_record
from games.match_pages import replay_analysis
from sitekit.ids import parse_id
from sitekit.limits import AddressBudget

log = logging.getLogger(__name__)

#: the largest record accepted (bytes): a 2,000-ply match's record is about 100 KB
MAX_RECORD_BYTES = 4 * 1024 * 1024
#: the longest record analysed on request (plies in all deals): a 100-point two-seat match has a few hundred
MAX_ANALYSIS_PLIES = 5000
#: how long an opened record's analysis is kept in the cache after its last change (s)
ANALYSIS_KEEP_SECONDS = 3600
#: an analysis not finished this long after it was asked for (s) was lost with its worker
ANALYSIS_LOST_SECONDS = 1800
_KEY = re.compile(r"[A-Za-z0-9_-]{43}")


class RecordOpenThrottle(AddressBudget):
    """Records opened per ``client_address``: ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["record_open"]`` (each
    replays a whole match on the web server's CPU)."""

    scope = "record_open"


class RecordAnalysisBudget(AddressBudget):
    """Analyses of opened records asked for per ``client_address`` (``RECORD_ANALYSIS_RATE``): each costs a worker
    seconds of CPU."""

    scope = "record_analysis"


class RecordRefused(ValueError):
    """A record the page cannot show; the message says what is wrong and what would be right."""


def read_records(text: str) -> list[dict]:
    """The match records in ``text``: one JSON object, or NDJSON (one object per line, blank lines skipped).
    Raises ``RecordRefused`` naming the line that is not a JSON object."""
    text = text.strip()
    if not text:
        raise RecordRefused(_("The record is empty: choose a record file or paste one (JSON, or one JSON record "
                              "per line)."))
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        whole = None
    if isinstance(whole, dict):
        return [whole]
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as exc:
            raise RecordRefused(_("Line %(line)s is not JSON (%(error)s): a record file holds one JSON record, or "
                                  "one record per line.") % {"line": number, "error": str(exc)[:120]}) from None
        if not isinstance(record, dict):
            raise RecordRefused(_("Line %(line)s is not a match record (a JSON object with \"ruleset\" and "
                                  "\"deals\").") % {"line": number})
        records.append(record)
    return records


def record_frames(record: dict) -> dict:
    """The replay viewer's data of ``record`` (as ``match_pages.match_replay`` gives a service match's): the frames
    of ``eights_engine.frames.replay_frames`` with each ply's think time and fault when the record has them
    (``localrun --record``), ``players`` (per seat: ``seat``, ``name``, ``kind``, ``total``, ``place``,
    ``forfeited``; the record's own when it has them, else "seat N") and ``result`` (``totals``, ``places``,
    ``forfeited``). Raises ``RecordRefused`` with the engine's words when the record does not replay."""
    try:
        state = verify_record(record)
        moves = [_moves(deal) for deal in record["deals"]]
        frames = replay_frames(record, moves)
    except (ReplayMismatch, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise RecordRefused(_("This record does not replay: %(reason)s") % {"reason": str(exc)[:400]}) from None
    except RecursionError:  # a value nested deeper than the replay goes
        raise RecordRefused(_("This record does not replay: %(reason)s") % {"reason": "a value is nested too deep"}) from None
    result = record.get("result") if isinstance(record.get("result"), dict) else {}
    forfeited = result.get("forfeited")
    places = result.get("places") or (state.standings if state.is_over else [None] * state.seats)
    given = record.get("players") if isinstance(record.get("players"), list) else []
    players = []
    for seat in range(state.seats):
        entry = given[seat] if seat < len(given) and isinstance(given[seat], dict) else {}
        name = entry.get("name") if isinstance(entry.get("name"), str) and entry.get("name") else None
        players.append({"seat": seat, "name": (name or _("seat %(seat)s") % {"seat": seat})[:80],
                        "kind": str(entry.get("kind", ""))[:20], "badge": "", "label": "",
                        "total": state.totals[seat], "place": places[seat], "forfeited": seat == forfeited})
    frames.update(match=None, preset=str(record.get("preset", ""))[:40], players=players,
                  result={"totals": list(state.totals), "places": list(places), "forfeited": forfeited})
    return frames


def _moves(deal: dict) -> list[dict]:
    """A deal's per-ply notes for ``replay_frames`` from a local record's ``think_ms`` and ``faults``: each fault in
    the words a service replay gives its kind (``referee.public_fault_text``; a local record keeps no cause)."""
    think = deal.get("think_ms") if isinstance(deal.get("think_ms"), list) else []
    faults = {}
    for entry in deal.get("faults") or []:
        if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int):
            faults[entry[0]] = str(entry[1])[:40]
    notes = []
    for ply in range(1, len(deal.get("actions") or []) + 1):
        ms = think[ply - 1] if ply <= len(think) and isinstance(think[ply - 1], int) else 0
        kind = faults.get(ply, "")
        notes.append({"think_ms": max(0, ms), "source": "fallback" if kind else "agent", "fault_kind": kind,
                      "fault": referee.public_fault_text(kind, kind)})
    return notes


@gzip_page
def record_open(request):
    """``GET``: the form (a record file, or one pasted). ``POST``: the record shown in the replay viewer, never
    stored; ``match`` picks one of an NDJSON file's records (1-based). A record that cannot be read or does not
    replay answers 400 with the form and the reason; past the budget per address 429 with Retry-After."""
    if request.method != "POST":
        return render(request, "games/record_open.html", {"max_mb": MAX_RECORD_BYTES // (1024 * 1024)})
    budget = RecordOpenThrottle()
    if budget.full(request):
        wait = budget.retry_after()
        response = _refused(request, _("You have opened %(rate)s records from this address: try again in %(wait)s "
                                       "s.") % {"rate": budget.rate, "wait": wait}, status=429)
        response["Retry-After"] = str(wait)
        return response
    budget.count(request)
    try:
        text = _record_text(request)
        records = read_records(text)
        choice = request.POST.get("match", "1").strip() or "1"
        number = parse_id(choice) or 0
        if not 1 <= number <= len(records):
            raise RecordRefused(_("Match %(choice)s is not in this file: it holds %(count)s record(s); give a number "
                                  "from 1 to %(count)s.") % {"choice": choice[:12], "count": len(records)})
        record = records[number - 1]
        frames = record_frames(record)
    except RecordRefused as exc:
        return _refused(request, str(exc), status=400)
    asked = request.POST.get("analyse") == "1"
    return render(request, "games/replay.html", {
        "match_id": None, "frames": frames, "start": {"deal": 1, "ply": 0}, "talk": [], "players": frames["players"],
        "deal_count": len(frames["deals"]), "seat_tools": None, "local_record": True,
        "record_count": len(records), "record_choice": int(choice),
        "record_analysis": record_analysis_start(request, record, frames) if asked else None})


def record_analysis_start(request, record: dict, frames: dict) -> dict:
    """Ask a worker to analyse an opened ``record`` (it replays: ``frames``): ``{"url"}`` of its status
    (``record_analysis_status``) once it is queued, else ``{"problem"}``: the record is longer than
    ``MAX_ANALYSIS_PLIES``, the address used its ``RECORD_ANALYSIS_RATE``, or the broker or the cache cannot be
    reached (the replay is shown all the same)."""
    plies = sum(len(deal["plies"]) for deal in frames["deals"])
    if plies > MAX_ANALYSIS_PLIES:
        return {"problem": _("This record has %(plies)s plies: records of at most %(max)s plies are analysed.")
                % {"plies": f"{plies:,}", "max": f"{MAX_ANALYSIS_PLIES:,}"}}
    budget = RecordAnalysisBudget()
    if budget.full(request):
        return {"problem": _("You have asked for %(rate)s analyses from this address: ask again in %(wait)s s.")
                % {"rate": budget.rate, "wait": budget.retry_after()}}
    from games.tasks import record_analysis_send  # the task module imports the service's modules

    key = secrets.token_urlsafe(32)  # 256 bits: the page that asked is the only one to know it
    queued = _analysis_put(key, {"status": "queued", "deals_done": 0, "deals_total": len(frames["deals"]),
                                 "asked_at": time.time()})
    if not queued or not record_analysis_send(key, record):
        return {"problem": _("The analysis cannot be asked for just now (a service is down): the replay works; ask "
                             "again in a minute.")}
    budget.count(request)
    return {"url": reverse("record-analysis", args=[key])}


def _analysis_put(key: str, entry: dict) -> bool:
    """Keep ``entry`` as the state of analysis ``key``; False (logged) when the cache cannot be reached."""
    try:
        cache.set(f"record-analysis:{key}", entry, ANALYSIS_KEEP_SECONDS)
    except Exception as exc:  # noqa: BLE001 - any cache backend's error: the analysis is lost, the page says so
        log.warning("an opened record's analysis could not be kept (%s)", type(exc).__name__)
        return False
    return True


def record_analysis_run(*, key: str, record: dict) -> str:
    """The ``analyse_record`` task's body: analyse ``record`` (``eights_engine.analysis.analyse`` with
    ``ANALYSIS_SAMPLES``), keeping its progress and then its answer under ``key`` (``record_analysis_status``).
    Returns ``done`` or ``failed`` (the engine's reason kept for the page)."""
    asked = time.time()
    try:
        entry = cache.get(f"record-analysis:{key}") or {}
        asked = entry.get("asked_at", asked)
    except Exception:  # noqa: BLE001 - the cache is down: the answer is kept if it is back by the end
        pass

    def progress(done: int, total: int) -> None:
        _analysis_put(key, {"status": "running", "deals_done": done, "deals_total": total, "asked_at": asked})

    try:
        data = analyse(record, samples=settings.ANALYSIS_SAMPLES, progress=progress)
    except (ValueError, KeyError, TypeError) as exc:  # the page checked that it replays: this is a surprise
        log.error("an opened record's analysis failed: %s", exc)
        _analysis_put(key, {"status": "failed", "error": str(exc)[:300], "asked_at": asked})
        return "failed"
    _analysis_put(key, {"status": "done", "deals_done": len(data["deals"]), "deals_total": len(data["deals"]),
                        "asked_at": asked, "analysis": replay_analysis({"analysis": data}),
                        "given_up": data["totals"]["given_up"], "lower_is_better": data["lower_is_better"]})
    return "done"


@never_cache
def record_analysis_status(request, key: str):
    """``GET /replay/open/analysis/<key>/``: JSON ``status`` (queued, running, done, failed, lost), ``deals_done``,
    ``deals_total`` and, once done, ``analysis`` (``match_pages.replay_analysis``'s shape), ``given_up`` (points
    per seat) and ``lower_is_better``; ``detail`` says what went wrong. 404 (status ``gone``) for a key never given
    or kept past ``ANALYSIS_KEEP_SECONDS``; 503 with Retry-After while the cache cannot be reached."""
    gone = JsonResponse({"status": "gone", "detail": _("There is no such analysis: it was never asked for, or it is "
                                                        "older than an hour. Open the record again to ask for one.")},
                        status=404)
    if not _KEY.fullmatch(key):
        return gone
    try:
        entry = cache.get(f"record-analysis:{key}")
    except Exception as exc:  # noqa: BLE001 - any cache backend's error
        log.warning("an opened record's analysis could not be read (%s)", type(exc).__name__)
        response = JsonResponse({"status": "unavailable", "detail": _("The analysis cannot be read just now: the "
                                                                        "page asks again.")}, status=503)
        response["Retry-After"] = "5"
        return response
    if entry is None:
        return gone
    answer = {k: v for k, v in entry.items() if k != "asked_at"}
    if entry["status"] in ("queued", "running") and time.time() - entry.get("asked_at", 0) > ANALYSIS_LOST_SECONDS:
        answer["status"] = "lost"
    if answer["status"] in ("failed", "lost"):
        answer["detail"] = _("The analysis did not finish: open the record again to ask for another.")
    return JsonResponse(answer)


def _record_text(request) -> str:
    """The record's text from the uploaded ``file`` or, without one, the pasted ``record``."""
    try:
        upload = request.FILES.get("file")
        pasted = request.POST.get("record", "")
    except RequestDataTooBig:  # the pasted text is over DATA_UPLOAD_MAX_MEMORY_SIZE (Django's 2.5 MB)
        raise RecordRefused(_("The pasted record is too long to paste: upload it as a file (at most %(max)s MB).")
                            % {"max": MAX_RECORD_BYTES // 1048576}) from None
    if upload is not None:
        if upload.size > MAX_RECORD_BYTES:
            raise RecordRefused(_("The file is %(size)s bytes: a record file may be %(max)s MB at most.")
                                % {"size": f"{upload.size:,}", "max": MAX_RECORD_BYTES // 1048576})
        data = upload.read(MAX_RECORD_BYTES + 1)
    else:
        data = pasted.encode("utf-8", "replace")
        if len(data) > MAX_RECORD_BYTES:
            raise RecordRefused(_("The pasted record is over %(max)s MB: upload it as a file of at most %(max)s MB.")
                                % {"max": MAX_RECORD_BYTES // 1048576})
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RecordRefused(_("The file is not UTF-8 text: a record is a JSON file.")) from None


def _refused(request, problem: str, *, status: int):
    return render(request, "games/record_open.html", {"max_mb": MAX_RECORD_BYTES // (1024 * 1024),
                                                      "problem": problem}, status=status)
