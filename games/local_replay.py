"""A match record opened in the replay viewer, never stored (issue 26, item 5): ``/replay/open/``.

A record file from anywhere: downloaded from a match page (``GET /api/matches/<id>/record/``), exported by
``manage.py export_matches`` (NDJSON, one record per line), or written by ``localrun --record`` on an author's own
machine. The page takes it uploaded or pasted, replays it with the engine (``eights_engine.record.verify_record``:
every ply legal, every stored result right) and shows it in the same viewer as a service match
(``templates/games/replay.html``, ``static/js/replay.js``), with the think times and faults a local record
carries. Nothing is kept: the record lives in the one request. The work is the engine's alone (no outbound call,
no database), bounded by ``MAX_RECORD_BYTES`` and by a budget per address (``RecordOpenThrottle``).
"""

from __future__ import annotations

import json

from django.core.exceptions import RequestDataTooBig
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.gzip import gzip_page

from eights_engine import referee
from eights_engine.frames import replay_frames
from eights_engine.match import ReplayMismatch
from eights_engine.record import verify_record
from sitekit.limits import AddressBudget

#: the largest record accepted (bytes): a 2,000-ply match's record is about 100 KB
MAX_RECORD_BYTES = 4 * 1024 * 1024


class RecordOpenThrottle(AddressBudget):
    """Records opened per ``client_address``: ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["record_open"]`` (each
    replays a whole match on the web server's CPU)."""

    scope = "record_open"


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
        if not choice.isdigit() or not 1 <= int(choice) <= len(records):
            raise RecordRefused(_("Match %(choice)s is not in this file: it holds %(count)s record(s); give a number "
                                  "from 1 to %(count)s.") % {"choice": choice[:12], "count": len(records)})
        frames = record_frames(records[int(choice) - 1])
    except RecordRefused as exc:
        return _refused(request, str(exc), status=400)
    return render(request, "games/replay.html", {
        "match_id": None, "frames": frames, "start": {"deal": 1, "ply": 0}, "talk": [], "players": frames["players"],
        "deal_count": len(frames["deals"]), "seat_tools": None, "local_record": True,
        "record_count": len(records), "record_choice": int(choice)})


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
