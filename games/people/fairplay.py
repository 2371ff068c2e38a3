"""Fair play (issue 27): reports, staff decisions, and the automatic signals that help the queue.

- ``report_create``: a signed-in person reports a player (a person or a bot) from its page, a match, or
  ``POST /api/reports/``: a reason from ``REPORT_REASONS`` and an optional note. One's own players (oneself, one's
  bots) cannot be reported; a person has ``REPORT_RATE`` new reports (default 10 a day).
- Staff work the queue in the admin (``games.admin.ReportAdmin``, with the match links): ``report_decide`` warns
  (a notification to the account), hides the account's players from every leaderboard, bans (``account_ban``: no
  rated match, no tournament, its bots not scheduled; results stay and are marked), or dismisses.
- ``fairplay_scan`` (a beat task, ``manage.py fairplay_scan``) flags, as reports with the reason ``signal`` and no
  reporter, people whose decisions match the expert's far more often than those of people of their rating (from
  the analyses of their matches; ``RATING_BAND``) and bots whose results against one other owner's bots look arranged. A flag only asks staff to
  look: nobody is warned, hidden or banned automatically.
"""

from __future__ import annotations

from statistics import mean, pstdev

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from games import hooks
from games.models import Match, MatchAnalysis, Notification, Player, Report, Seat
from games.notices import notify
from sitekit.errors import ApiError
from sitekit.limits import AddressBudget, LimitRefused, limit_words

#: The reasons a person may give (``signal`` is the automatic scan's).
REPORT_REASONS = [r for r in Report.Reason.values if r != Report.Reason.SIGNAL]
#: The expert-agreement signal: at least this many analysed decisions of a person, and a share of decisions where
#: they chose as the expert would this many standard deviations above the other people's (and above ``SHARE_FLOOR``).
SIGNAL_MIN_DECISIONS = 200
SIGNAL_SIGMAS = 3.0
SHARE_FLOOR = 0.85
#: People "of their rating": best ladder ratings (mu - 3 sigma) within this of each other; with fewer than
#: ``BAND_MIN_PEOPLE`` such people, a person is compared with every other person.
RATING_BAND = 5.0
BAND_MIN_PEOPLE = 3
#: The arranged-results signal: a bot that met one other owner's bots at least this many times and lost (last
#: place) in at least this share of them, while it wins at least ``ARRANGED_ELSEWHERE`` of its other matches.
ARRANGED_MIN_MATCHES = 10
ARRANGED_LOSS_SHARE = 0.9
ARRANGED_ELSEWHERE = 0.4


class ReportRefused(ApiError):
    """A report that cannot be made: 400 ``bad_report`` (saying what would be right), 404 ``not_found``."""

    def status_for(self, code: str) -> int:
        return 404 if code == "not_found" else 400


class ReportBudget(AddressBudget):
    """New reports per account (``REPORT_RATE``)."""

    scope = "report"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": f"user{request.user.pk}"}


def report_create(*, request, player: Player | None, reason: str, note: str = "",
                  match: Match | None = None) -> tuple[Report, bool]:
    """``request.user`` reports ``player`` (for ``reason``, with ``note``, about ``match``). Returns ``(report,
    made now)``: the same open report, not a new one, when this person reported this player already (asked twice,
    counted once; the first reason and note stand). ``ReportRefused``:
    ``not_found`` (no such player), ``bad_report`` (oneself or one's own bot, a house bot, an unknown reason, a note over 500
    characters, a match the player did not play in); ``LimitRefused`` (429) past ``REPORT_RATE``."""
    user = request.user
    if player is None:
        raise ReportRefused("not_found", "there is no such player: report a player by its exact name or id")
    if player.user_id == user.pk:
        raise ReportRefused("bad_report", "you cannot report yourself or your own bots")
    if player.kind == Player.Kind.HOUSE:
        raise ReportRefused("bad_report", f"{player.name} is a house bot: the service's own, playing a fixed "
                            "strategy; report a person or a bot that someone entered")
    if reason not in REPORT_REASONS:
        raise ReportRefused("bad_report", f"reason {str(reason)[:40]!r} is not one of {', '.join(REPORT_REASONS)}")
    note = (note or "").strip()
    if len(note) > 500:
        raise ReportRefused("bad_report", f"the note is {len(note)} characters: at most 500")
    if match is not None and not Seat.objects.filter(match=match, player=player).exists():
        raise ReportRefused("bad_report", f"{player.name} did not play in match {match.pk}: name a match of theirs, "
                            "or none")
    existing = Report.objects.filter(player=player, reporter=user, status=Report.Status.OPEN).first()
    if existing is not None:
        return existing, False
    budget = ReportBudget()
    if budget.full(request):
        raise LimitRefused(f"you have made {limit_words(scope=budget.scope, rate=budget.get_rate())}: report "
                           "again later", budget.retry_after())
    report = Report.objects.create(player=player, reporter=user, reason=reason, note=note, match=match)
    budget.count(request)
    return report, True


def _account_players(player: Player):
    """The players of ``player``'s account (the person and their bots), or ``player`` alone (a house bot)."""
    if player.user_id is None:
        return Player.objects.filter(pk=player.pk)
    return Player.objects.filter(user_id=player.user_id)


def account_ban(*, player: Player) -> int:
    """Ban ``player``'s account: every player of it is marked banned and inactive (no rated match, no tournament,
    no scheduling); its results stay; what waits to seat them in rated play is withdrawn (``hooks.account_banned``).
    Returns how many players were banned."""
    with transaction.atomic():
        ids = list(_account_players(player).filter(banned_at__isnull=True).values_list("pk", flat=True))
        banned = Player.objects.filter(pk__in=ids).update(banned_at=timezone.now(), is_active=False)
        if ids:
            hooks.account_banned.send(sender=Player, player_ids=ids)
    return banned


def report_decide(*, report: Report, decision: str, staff) -> None:
    """Staff's decision on ``report`` (``Report.Status``: warned, hidden, banned, dismissed), applied to the
    reported player's account: a warning is a notification to it; hidden takes its players off every leaderboard;
    banned (``account_ban``). Every open report on that player is closed with the same decision. ``ValueError``
    for another decision."""
    if decision not in (Report.Status.WARNED, Report.Status.HIDDEN, Report.Status.BANNED, Report.Status.DISMISSED):
        raise ValueError(f"decision {decision!r}: warned, hidden, banned or dismissed")
    player = report.player
    with transaction.atomic():
        if decision == Report.Status.WARNED:
            notify(user_id=player.user_id, kind=Notification.Kind.FAIR_PLAY_WARNING,
                   params={"player": player.name, "reason": report.get_reason_display()},
                   key=f"warning:{report.pk}")
        elif decision == Report.Status.HIDDEN:
            _account_players(player).update(hidden_from_boards=True)
        elif decision == Report.Status.BANNED:
            account_ban(player=player)
        Report.objects.filter(player=player, status=Report.Status.OPEN).update(
            status=decision, handled_at=timezone.now(), handled_by=staff)


def _flag(player: Player, note: str) -> Report | None:
    """An open ``signal`` report on ``player`` with ``note`` (none when one is open already)."""
    if Report.objects.filter(player=player, reason=Report.Reason.SIGNAL, status=Report.Status.OPEN).exists():
        return None
    return Report.objects.create(player=player, reason=Report.Reason.SIGNAL, note=note[:500])


def expert_agreement() -> dict[int, tuple[int, int]]:
    """Per person (player id): (decisions, decisions where they chose as the expert would) over the done analyses of
    their matches (``MatchAnalysis``: each decision's ``chosen`` and ``best``)."""
    seats = {}
    for match_id, index, player_id in Seat.objects.filter(
            player__kind=Player.Kind.HUMAN, match__analysis__status=MatchAnalysis.Status.DONE).values_list(
            "match_id", "index", "player_id"):
        seats.setdefault(match_id, {})[index] = player_id
    tally: dict[int, list[int]] = {}
    for match_id, data in MatchAnalysis.objects.filter(pk__in=seats, status=MatchAnalysis.Status.DONE).values_list(
            "match_id", "data"):
        people = seats[match_id]
        for deal in (data or {}).get("deals", []):
            for decision in deal.get("decisions", []):
                player_id = people.get(decision.get("seat"))
                if player_id is not None:
                    row = tally.setdefault(player_id, [0, 0])
                    row[0] += 1
                    row[1] += decision.get("chosen") == decision.get("best")
    return {p: (n, agree) for p, (n, agree) in tally.items()}


def arranged_results() -> list[tuple[int, int, int, float]]:
    """Bots whose results against one other owner's bots look arranged: (bot player id, that owner's user id,
    matches between them, the bot's share of last places in them), for bots that lose nearly always to that owner's
    bots (``ARRANGED_LOSS_SHARE`` of at least ``ARRANGED_MIN_MATCHES``) but win ``ARRANGED_ELSEWHERE`` of their
    other matches."""
    with_bots = Seat.objects.filter(match__status=Match.Status.FINISHED, player__kind=Player.Kind.BOT).values("match_id")
    rows = (Seat.objects.filter(match_id__in=with_bots)
            .values_list("match_id", "player_id", "player__user_id", "place", "player__kind"))
    by_match: dict[int, list[tuple[int, int | None, int | None]]] = {}
    bots = set()
    for match_id, player_id, owner, place, kind in rows:
        by_match.setdefault(match_id, []).append((player_id, owner, place))
        if kind == Player.Kind.BOT:
            bots.add(player_id)
    met: dict[tuple[int, int], list[int]] = {}  # (bot, other owner) -> [matches, last places]
    overall: dict[int, list[int]] = {}  # bot -> [matches, wins]
    for seats in by_match.values():
        places = [place for _p, _o, place in seats if place is not None]
        if len(seats) < 2 or not places:
            continue
        worst, best = max(places), min(places)
        for player_id, owner, place in seats:
            if player_id not in bots:
                continue
            stats = overall.setdefault(player_id, [0, 0])
            stats[0] += 1
            stats[1] += place == best
            # each other owner whose bots sat here, once per match (two of their bots are one meeting)
            for other_owner in {o for other, o, _place in seats if other in bots and o not in (None, owner)}:
                pair = met.setdefault((player_id, other_owner), [0, 0])
                pair[0] += 1
                pair[1] += place == worst
    found = []
    for (player_id, owner), (n, lost) in met.items():
        if n < ARRANGED_MIN_MATCHES or lost / n < ARRANGED_LOSS_SHARE:
            continue
        total, wins = overall[player_id]
        rest = total - n
        if rest >= ARRANGED_MIN_MATCHES and wins / rest >= ARRANGED_ELSEWHERE:
            found.append((player_id, owner, n, lost / n))
    return found


def fairplay_scan() -> list[Report]:
    """Flag, for staff to look at, what the automatic signals see (module docstring): returns the new flags."""
    flags = []
    agreement = {p: (n, agree / n) for p, (n, agree) in expert_agreement().items() if n >= SIGNAL_MIN_DECISIONS}
    # each person's best ladder rating (the ladder app's relation, read without importing it); 0 unrated
    rating = {p: best or 0.0 for p, best in Player.objects.filter(pk__in=agreement).annotate(
        best=Max("ladder_entries__ordinal")).values_list("pk", "best")}
    if len(agreement) >= 3:
        for player_id, (n, share) in agreement.items():
            others = [s for p, (_n, s) in agreement.items() if p != player_id]
            near = [s for p, (_n, s) in agreement.items()
                    if p != player_id and abs(rating[p] - rating[player_id]) <= RATING_BAND]
            if len(near) >= BAND_MIN_PEOPLE:
                others = near  # people of their rating
            centre, spread = mean(others), pstdev(others) or 0.01
            if share >= SHARE_FLOOR and share > centre + SIGNAL_SIGMAS * spread:
                flag = _flag(Player.objects.get(pk=player_id),
                             f"chose as the expert would in {share:.0%} of {n} analysed decisions; other people "
                             f"{centre:.0%} (sd {spread:.1%})")
                flags.append(flag)
    for player_id, owner, n, lost in arranged_results():
        owner_name = Player.objects.filter(user_id=owner, kind=Player.Kind.HUMAN).values_list("name", flat=True).first()
        flag = _flag(Player.objects.get(pk=player_id),
                     f"lost {lost:.0%} of {n} matches against the bots of {owner_name or f'user {owner}'}, while "
                     "winning often against everyone else")
        flags.append(flag)
    return [f for f in flags if f is not None]

