"""Bot versions: every match a bot takes a seat in records the version it ran (``BotMatchVersion``), and the bot's
page and its trials show results per version.

The version is written twice. As the match is created, the version the bot last reported (``Bot.reported_version``,
from its check's ping) is written by the ``games.hooks.match_created`` receiver in the match's own transaction (no
outbound call). Then, when the match has ended, the worker sends the bot its ``match_end`` and asks the bot itself
(``match_version_ask``: the protocol's signed ping, after the ``match_end`` as in a check, so a ping never tells a
bot whether its turns are a check's) and writes what it says, so a bot changed and restarted without a new check is
counted under the version it really runs (issue 26: a newcomer's v2 was compared with v2 labelled "1.0"). A trial's
``bot_version`` becomes the versions its bot said in its matches."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

from bots_api.client import BotFault, post_json
from bots_api.models import Bot, BotMatchVersion, Trial
from eights_engine.bots.protocol import ping_body, printable, schema_errors
from games.models import Match, Player, Seat
from tournaments.models import LadderEntry, RatingChange

#: Versions shown on a bot's page (the most recently played first).
VERSIONS_SHOWN = 20
#: How a match played before versions were recorded (or by a bot that never reported one) is labelled.
UNRECORDED = ""


#: How long (ms) the ping after a match's ``match_end`` may take. A bot that does not answer it in time keeps the
#: version of its last check for the match.
VERSION_PING_MS = 1000


def match_version_ask(*, bot: Bot, match_id: int, seat: int) -> str | None:
    """Ask ``bot`` which version it runs (a signed ``ping``, bot protocol v1, through the address guard; at most
    ``VERSION_PING_MS``), after match ``match_id``'s ``match_end``, and record the answer for that seat
    (``BotMatchVersion.version``, ``said``); if the match is a trial's, the trial's ``bot_version`` becomes the
    versions its bot has said in its matches (sorted, comma-separated when it changed mid-trial). Returns the
    version said, or None when the bot gave no valid ping reply (nothing changes: the version of its last check
    stays). Never raises for what the bot does; makes an outbound call, so never call it in a web request."""
    try:
        reply, _elapsed = post_json(bot.endpoint_url, bot.secret, ping_body(), VERSION_PING_MS)
    except BotFault:
        return None
    if schema_errors("ping_reply", reply):
        return None
    version = printable(reply.get("version", ""))  # kept as a check's ping keeps it (Bot.reported_version)
    BotMatchVersion.objects.update_or_create(match_id=match_id, seat=seat,
                                             defaults={"bot": bot, "version": version, "said": True})
    trial = Trial.objects.filter(trial_matches__match_id=match_id).values_list("pk", flat=True).first()
    if trial is not None:
        said = sorted(set(BotMatchVersion.objects.filter(match__trial_match__trial_id=trial, bot=bot, said=True)
                          .values_list("version", flat=True)))
        Trial.objects.filter(pk=trial).update(bot_version=", ".join(said)[:100])
    return version


def on_match_created(sender, *, match: Match, players: list[Player], **kwargs) -> None:
    """Record, for each bot seat of the new ``match``, the version its bot last reported (one query to find the bots,
    one INSERT; nothing for a match without bots)."""
    seat_of = {p.pk: i for i, p in enumerate(players) if p.kind == Player.Kind.BOT}
    if not seat_of:
        return
    rows = [BotMatchVersion(bot=bot, match=match, seat=seat_of[bot.player_id], version=bot.reported_version)
            for bot in Bot.objects.filter(player_id__in=seat_of).only("pk", "player_id", "reported_version")]
    BotMatchVersion.objects.bulk_create(rows, ignore_conflicts=True)


@dataclass(frozen=True)
class VersionStats:
    """A bot's record under one version: ``version`` ("" when unrecorded), ``matches`` (seats taken), ``finished``,
    ``wins`` (first place, shared or not), ``mean_place`` (of finished matches; None before one), ``forfeits``,
    ``rated`` (matches that moved a ladder rating) and ``rating_change`` (sum of ordinal changes over them, points)."""

    version: str
    matches: int
    finished: int
    wins: int
    mean_place: float | None
    forfeits: int
    rated: int
    rating_change: float


def bot_versions(*, bot: Bot) -> list[VersionStats]:
    """``bot``'s results and rating movement per version, the most recently played version first (at most
    ``VERSIONS_SHOWN``). One query, whatever the number of matches."""
    seat, mv, rc, entry, match = (m._meta.db_table for m in (Seat, BotMatchVersion, RatingChange, LadderEntry, Match))
    sql = f"""
        SELECT COALESCE(v.version, %s) AS version, COUNT(*),
               COUNT(*) FILTER (WHERE m.status = 'finished'),
               COUNT(*) FILTER (WHERE m.status = 'finished' AND s.place = 1),
               AVG(s.place) FILTER (WHERE m.status = 'finished'),
               COUNT(*) FILTER (WHERE s.forfeited),
               COUNT(r.id), COALESCE(SUM(r.ordinal_after - r.ordinal_before), 0),
               MAX(m.id) AS last_match
        FROM {seat} s
        JOIN {match} m ON m.id = s.match_id
        LEFT JOIN {mv} v ON v.match_id = s.match_id AND v.seat = s."index"
        LEFT JOIN {rc} r ON r.match_id = s.match_id
             AND r.entry_id IN (SELECT e.id FROM {entry} e WHERE e.player_id = %s)
        WHERE s.player_id = %s
        GROUP BY 1 ORDER BY last_match DESC LIMIT %s"""
    with connection.cursor() as cursor:
        cursor.execute(sql, [UNRECORDED, bot.player_id, bot.player_id, VERSIONS_SHOWN])
        rows = cursor.fetchall()
    return [VersionStats(version=v, matches=n, finished=f, wins=w, mean_place=float(p) if p is not None else None,
                         forfeits=fo, rated=r, rating_change=float(d)) for v, n, f, w, p, fo, r, d, _last in rows]
