"""Analyses of finished matches: the expert's reading of every decision, and each deal's luck (issue 26).

The engine does the work (``eights_engine.analysis.analyse`` of the match's record: for each decision of each seat,
the action the ``expert`` house strategy prefers from that seat's information and the expected points the chosen
one gave up; per deal, par and the split into cards and decisions). Here it is asked for, run and kept:

- ``analysis_request``: a ``MatchAnalysis`` row for a public match (finished, and no match dealt the same cards still
  running: ``match_is_public``), queued once; asking again changes nothing, except that a failed one is tried again.
  A match with a person seated is asked for when it finishes (``ANALYSE_PEOPLES_MATCHES``); anyone signed in may ask
  for any public match (``ANALYSIS_RATE``).
- ``analysis_run``: the ``analyse_match`` task's body, on the house queue (CPU bound). A worker claims the row with a
  conditional UPDATE (queued, or running and left by a worker that died), so two tasks never run one analysis.
- ``analyses_to_queue``: what the watchdog sends again (a task no worker took within ``REQUEUE_SECONDS``, a worker
  that died mid-way), after ``MAX_ATTEMPTS`` takes it is marked failed.

Nothing hidden is shown early: an analysis holds every seat's cards in its preferred actions and the deals' par, so
it is made and shown only for a public match (``analysis_answer`` checks again on every read).
"""

from __future__ import annotations

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from eights_engine.analysis import ANALYSIS_SAMPLES, analyse
from games.matches.exports import match_export, match_is_public
from games.models import Match, MatchAnalysis, Player
from sitekit.limits import AddressBudget, LimitRefused, limit_words

log = logging.getLogger(__name__)

#: A queued analysis that no worker took for this long (s) is sent again by the watchdog.
REQUEUE_SECONDS = 300
#: A running analysis whose worker has not finished it in this long (s) was left by a worker that died.
RUNNING_STALE_SECONDS = 1800
#: Takes by a worker after which an analysis that never finished is marked failed.
MAX_ATTEMPTS = 3


class AnalysisRefused(Exception):
    """The match cannot be analysed (yet): ``detail`` says why and what would do."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def analysis_request(*, match: Match) -> tuple[MatchAnalysis, bool]:
    """The analysis of ``match``, queued when there was none (or it failed): ``(row, queued now)``. Its task is sent
    once the transaction commits (``analysis_queue``). ``AnalysisRefused`` unless the match is public."""
    if not match_is_public(match=match):
        what = "is still running" if match.status == Match.Status.RUNNING else (
            "was aborted" if match.status == Match.Status.ABORTED else "shares its cards with a match still running")
        raise AnalysisRefused(f"match {match.pk} {what}: an analysis shows every seat's cards, so it is made once the "
                              "match is finished and public")
    with transaction.atomic():
        row, created = MatchAnalysis.objects.get_or_create(match=match, defaults={"queued_at": timezone.now()})
        if not created and row.pk in analyses_to_queue(match_id=row.pk):  # its task was lost (a process that ended)
            match_pk = match.pk
            transaction.on_commit(lambda: analysis_queue(match_id=match_pk))
            return row, True
        if not created and row.status != MatchAnalysis.Status.FAILED:
            return row, False
        if not created:
            MatchAnalysis.objects.filter(pk=row.pk).update(
                status=MatchAnalysis.Status.QUEUED, queued_at=timezone.now(), attempts=0, error="", deals_done=0)
            row.refresh_from_db()
        match_pk = match.pk
        transaction.on_commit(lambda: analysis_queue(match_id=match_pk))
    return row, True


class AnalysisBudget(AddressBudget):
    """Analyses a person may ask for (``ANALYSIS_RATE``), counted per account when one is queued: asking for one that
    exists costs nothing."""

    scope = "analysis_request"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": f"user{request.user.pk}"}


def analysis_ask(*, match: Match, request) -> MatchAnalysis:
    """A signed-in person's request (the API's POST, the match page's button): ``analysis_request`` within their
    budget. ``LimitRefused`` (429) when it is used up and the analysis would be a new one; ``AnalysisRefused`` as
    ``analysis_request``."""
    budget = AnalysisBudget()
    exists = MatchAnalysis.objects.filter(pk=match.pk).exclude(status=MatchAnalysis.Status.FAILED).exists()
    if not exists and budget.full(request):
        raise LimitRefused(f"you have asked for {limit_words(scope=budget.scope, rate=budget.get_rate())}: ask again "
                           "later", budget.retry_after())
    row, queued = analysis_request(match=match)
    if queued and not exists:
        budget.count(request)
    return row


def analysis_queue(*, match_id: int) -> bool:
    """Send the ``analyse_match`` task for ``match_id`` (a worker of the house queue takes it; without a broker a
    thread of this process). Returns whether it was sent: a broker that cannot be reached leaves the row queued for
    the watchdog, and nothing is raised."""
    from games.tasks import analysis_send  # the task module imports this one

    sent = analysis_send(match_id)
    if sent:
        MatchAnalysis.objects.filter(pk=match_id, status=MatchAnalysis.Status.QUEUED).update(queued_at=timezone.now())
    return sent


def analysis_run(*, match_id: int) -> str:
    """Run the analysis of ``match_id`` if it is this caller's to run: claim it, analyse the match's record, store the
    answer. Returns what happened: ``done``, ``failed``, ``busy`` (another worker has it), ``gone`` (no such row) or
    ``waiting`` (the match is not public yet: left queued)."""
    now = timezone.now()
    claimable = Q(status=MatchAnalysis.Status.QUEUED) | Q(
        status=MatchAnalysis.Status.RUNNING, started_at__lt=now - timedelta(seconds=RUNNING_STALE_SECONDS))
    claimed = MatchAnalysis.objects.filter(claimable, pk=match_id).update(
        status=MatchAnalysis.Status.RUNNING, started_at=now, attempts=F("attempts") + 1, deals_done=0)
    if not claimed:
        return "busy" if MatchAnalysis.objects.filter(pk=match_id).exists() else "gone"
    row = MatchAnalysis.objects.select_related("match").get(pk=match_id)
    match = row.match
    if not match_is_public(match=match):  # a mirror of it still runs: try again later
        MatchAnalysis.objects.filter(pk=match_id).update(status=MatchAnalysis.Status.QUEUED, started_at=None,
                                                         attempts=F("attempts") - 1)
        return "waiting"
    started = time.thread_time()
    # the record anyone may download: its result says a forfeit, its faults which plies were fallbacks, not choices
    record = match_export(match=match, sign=False)
    total = len(record["deals"])
    MatchAnalysis.objects.filter(pk=match_id).update(deals_total=total)

    def progress(done: int, _total: int) -> None:
        MatchAnalysis.objects.filter(pk=match_id).update(deals_done=done)

    try:
        data = analyse(record, samples=settings.ANALYSIS_SAMPLES, progress=progress)
    except ValueError as exc:  # a record the engine cannot replay: kept as failed, with the reason
        log.error("analysis of match %s failed: %s", match_id, exc)
        MatchAnalysis.objects.filter(pk=match_id).update(status=MatchAnalysis.Status.FAILED, error=str(exc)[:300],
                                                         finished_at=timezone.now())
        return "failed"
    cost_ms = int((time.thread_time() - started) * 1000)
    MatchAnalysis.objects.filter(pk=match_id).update(
        status=MatchAnalysis.Status.DONE, data=data, cost_ms=cost_ms, finished_at=timezone.now(), deals_done=total,
        error="")
    return "done"


def analyses_to_queue(*, match_id: int | None = None) -> list[int]:
    """The analyses the watchdog sends again (only ``match_id``'s when given): queued and not taken within
    ``REQUEUE_SECONDS`` of being sent, or running past ``RUNNING_STALE_SECONDS`` (the worker died). Those taken
    ``MAX_ATTEMPTS`` times are marked failed instead."""
    now = timezone.now()
    stale = Q(status=MatchAnalysis.Status.QUEUED, queued_at__lt=now - timedelta(seconds=REQUEUE_SECONDS)) | Q(
        status=MatchAnalysis.Status.RUNNING, started_at__lt=now - timedelta(seconds=RUNNING_STALE_SECONDS))
    if match_id is not None:
        stale &= Q(pk=match_id)
    MatchAnalysis.objects.filter(stale, attempts__gte=MAX_ATTEMPTS).update(
        status=MatchAnalysis.Status.FAILED, finished_at=now,
        error=f"no worker finished it in {MAX_ATTEMPTS} tries: ask for it again")
    return list(MatchAnalysis.objects.filter(stale).values_list("pk", flat=True)[:100])


def on_match_finished(sender, match: Match, **kwargs) -> None:
    """``match_finished`` receiver: a finished match with a person seated is analysed without being asked
    (``ANALYSE_PEOPLES_MATCHES``), once it is public; the row is written in the finishing transaction and its task
    sent after it commits."""
    if not settings.ANALYSE_PEOPLES_MATCHES or not match.seats.filter(player__kind=Player.Kind.HUMAN).exists():
        return
    if not match_is_public(match=match):
        return  # a duplicate set's mirror still runs: anyone may ask once it is public
    MatchAnalysis.objects.get_or_create(match=match, defaults={"queued_at": timezone.now()})
    match_pk = match.pk
    transaction.on_commit(lambda: analysis_queue(match_id=match_pk))


def analysis_answer(*, match: Match) -> dict | None:
    """What ``GET /api/matches/<id>/analysis/`` and the match page show of ``match``'s analysis: None when there is
    none; else ``status``, ``deals_done``, ``deals_total``, ``requested_at``, ``finished_at``, ``cost_ms``,
    ``error``, ``samples`` and, once done, ``analysis`` (the engine's answer). ``AnalysisRefused`` while the match is
    not public (a running match's row never exists; this is the second lock)."""
    if not match_is_public(match=match):
        raise AnalysisRefused(f"match {match.pk} is not finished and public: its analysis comes once it is")
    row = MatchAnalysis.objects.filter(pk=match.pk).first()
    if row is None:
        return None
    return {"status": row.status, "deals_done": row.deals_done, "deals_total": row.deals_total,
            "requested_at": row.requested_at, "finished_at": row.finished_at, "cost_ms": row.cost_ms,
            "error": row.error, "samples": (row.data or {}).get("samples", ANALYSIS_SAMPLES),
            "analysis": row.data if row.status == MatchAnalysis.Status.DONE else None}
