"""The agent that decides for bot seats: one signed ``turn`` request per decision (bot protocol v1).

Latency fairness: each turn may take ``match.turn_timeout_ms``; a seat's time bank (``Seat.time_bank_ms``,
``BOT_TIME_BANK_MS`` at the start of a match) absorbs the part of a slow turn beyond that, and a turn that
overruns both is the bot's ``timeout`` fault. Every request tells the bot its deadline, its time bank and the
round trip of its previous turn. A fault of any kind (``client.FAULT_KINDS``) plays the engine's fallback action
(``games.engine.strategies.fallback_action``) and is stored on the move with its cause.
"""

from __future__ import annotations

from games.agents import Decision
from games.engine.strategies import fallback_action

from bots_api.client import BotFault, post_json
from bots_api.localhttp import ask_turn
from bots_api.models import Bot
from bots_api.protocol import turn_body


def bot_agent(*, player, match_id, seat, view, legal_actions, state, seat_row, match) -> Decision:
    """Ask the bot behind ``player`` for its action; never raises for anything the bot does."""
    bot = Bot.objects.filter(player=player).first()
    bank = seat_row.time_bank_ms
    if bot is None or not bot.is_enabled:
        return _fault(legal_actions, BotFault("disabled", "the bot is disabled or was deleted"), bank)
    body = turn_body(match_id=match_id, deal_number=state.deal_number, ply=state.deal.ply, seat=seat, view=view,
                     legal_actions=legal_actions, ruleset=match.ruleset, totals=state.totals,
                     deadline_ms=match.turn_timeout_ms, last_latency_ms=seat_row.last_latency_ms, time_bank_ms=bank)
    action, fault, elapsed, bank = ask_turn(lambda b, timeout: post_json(bot.endpoint_url, bot.secret, b, timeout),
                                            body, state.deal, match.turn_timeout_ms, bank)
    if fault is not None:
        return _fault(legal_actions, fault, bank)
    return Decision(action=action, think_ms=elapsed, time_bank_ms=bank)


def _fault(legal_actions: list[dict], fault: BotFault, bank: int) -> Decision:
    return Decision(action=fallback_action(legal_actions), source="fallback", fault=f"{fault.kind}: {fault.cause}",
                    fault_kind=fault.kind, think_ms=fault.elapsed_ms, time_bank_ms=bank)
