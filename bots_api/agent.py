"""The agent that decides for bot seats: one signed ``turn`` request per decision (bot protocol v1).

Latency fairness: each turn may take ``match.turn_timeout_ms`` (the turn's ``deadline_ms``); a seat's time bank
(``Seat.time_bank_ms``, ``BOT_TIME_BANK_MS`` at the start of a match) absorbs the part of a slow turn beyond that,
and a turn that overruns both is the bot's ``timeout`` fault. Every request tells the bot its deadline, its time
bank and the round trip of its previous turn. A fault of any kind (``protocol.FAULT_KINDS``) is returned as the
answer's fault; the referee (``eights_engine.referee.judge``) finds an illegal action, plays the engine's fallback
and counts the fault, and the move is stored with its cause. Every call is written to the bot's turn log
(``bots_api.turnlog``: the exact request, the raw reply, the latency, the bot's ``debug`` note) for its owner.
"""

from __future__ import annotations

import time
from dataclasses import replace

from eights_engine.referee import Answer, Fault, Turn

from bots_api.client import post_json
from eights_engine.bots.bot_calls import ask_turn
from bots_api.models import Bot
from bots_api.turnlog import turn_log_record
from games.operations.metrics import bot_call_observed


def bot_agent(*, player, turn: Turn, **context) -> Answer:
    """Ask the bot behind ``player`` for its answer to ``turn``; never raises for anything the bot does."""
    bot = Bot.objects.filter(player=player).first()
    if bot is None or not bot.is_enabled:
        return Answer(fault=Fault("disabled", "the bot is disabled or was deleted"), time_bank_ms=turn.time_bank_ms)
    trace: dict = {}
    started = time.perf_counter()
    answer = ask_turn(lambda body, timeout: post_json(bot.endpoint_url, bot.secret, body, timeout, trace=trace), turn)
    if not answer.think_ms:  # a sub-millisecond call measures 0 ms, and the worker would then time this whole
        # agent, the log's write included: the call's own time (at least 1 ms) is the answer's
        answer = replace(answer, think_ms=max(1, round((time.perf_counter() - started) * 1000)))
    ignored = ""
    open_ = context.get("contribution_open")  # None: the match takes none (games.services.takes_contributions)
    if answer.contribution is not None and not open_:
        if open_ is False:  # the seat sent one already in this deal
            ignored = "contribution ignored: this seat's first one in this deal counts already (one a deal)"
        # a match that takes none (a duplicate set's, a fixed-seed trial's, a deal played again) ignores it quietly:
        # the bot did nothing wrong (docs/FAIRNESS.md)
        answer = replace(answer, contribution=None)
    turn_log_record(bot=bot, turn=turn, trace=trace, think_ms=answer.think_ms, warning=ignored)
    bot_call_observed(answer, turn)  # /metrics: bot call latency and faults by kind (games.operations.metrics)
    return answer
