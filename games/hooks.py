"""Every way another app extends ``games``, in one place (``games`` never imports ``tournaments`` or ``bots_api``;
they plug in here from ``AppConfig.ready()``):

- **Signals**: ``match_created`` and ``match_finished``, sent inside the transaction that creates or finishes a
  match; receivers write in the same transaction (ratings, tournament rounds, bots' versions, match-end calls).
  ``guest_adopted``, sent inside the transaction that moves a guest's seats to an account (tables: its table seats).
- **Agents**: who decides for a seat, per player kind (``register_agent``, ``agent_for``; ``games.agents`` has the
  agent contract and the house and human agents).
- **Match page extras**: context added to the match page (``register_match_page_extra``: rating changes, a trial's
  note).
- **Replay tools**: links from the replay viewer to what only one viewer may see (``register_replay_tool``).
- **Match groups**: filters of the match list owned by another app (``register_match_group``: ``?ladder=``,
  ``?tournament=``).

Registering twice keeps one entry (``ready()`` may run more than once in tests)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from django.dispatch import Signal

#: Sent inside the transaction that finishes a match, with ``match`` (a finished ``Match``).
#: Receivers (ladder ratings, tournament brackets) write in the same transaction.
match_finished = Signal()

#: Sent once the transaction that made a notification about a bot has committed (``games.notices.notify`` with
#: ``about``), with ``notification_id`` and ``player_id`` (the bot's player). bots_api: the owner's webhook.
bot_notice = Signal()

#: Sent inside the transaction that creates a match, with ``match`` (a new running ``Match``) and ``players`` (its
#: players in seat order). Receivers write in the same transaction (bots_api: the version each bot last reported).
match_created = Signal()

#: Sent inside the transaction that moves a guest's seats to an account (``games.people.guests.guest_adopt``), with
#: ``guest`` (the guest ``Player``, deleted right after) and ``person`` (the account's ``Player``). Receivers move
#: what else they keep of the guest to the person (tables: seats taken, seats kept for them, tables created).
guest_adopted = Signal()

#: Sent when an account is banned (``games.people.fairplay.account_ban``), in its transaction, with ``player_ids``
#: (every player of the account). Receivers withdraw what would seat them in rated play (tables: the waiting rated
#: tables and challenges made by them or keeping a seat for them are cancelled).
account_banned = Signal()

# ---- agents ------------------------------------------------------------------------------------------------------

#: ``fn(*, player, turn, rng, seat_row, match, contribution_open) -> Answer | None`` (``games.agents``)
Agent = Callable[..., Optional[object]]
_AGENTS: dict[str, Agent] = {}


def register_agent(kind: str, agent: Agent) -> None:
    """Make ``agent`` decide for every player of ``kind`` (``house``, ``bot``, ``human``); a second call replaces."""
    _AGENTS[kind] = agent


def agent_for(kind: str) -> Agent:
    """The registered agent for a player kind; ``LookupError`` when no app registered one."""
    try:
        return _AGENTS[kind]
    except KeyError:
        raise LookupError(f"no agent is registered for players of kind {kind!r}") from None


# ---- the match page ----------------------------------------------------------------------------------------------

#: ``fn(match) -> dict``: context for the match page
MATCH_PAGE_EXTRAS: list[Callable] = []


def register_match_page_extra(extra: Callable) -> None:
    """Add ``extra(match) -> dict`` to the match page's context."""
    if extra not in MATCH_PAGE_EXTRAS:
        MATCH_PAGE_EXTRAS.append(extra)


def match_page_extras(match) -> dict:
    """Every registered extra's context for ``match``, merged in registration order."""
    context: dict = {}
    for extra in MATCH_PAGE_EXTRAS:
        context.update(extra(match))
    return context


# ---- the replay viewer -------------------------------------------------------------------------------------------

#: ``fn(*, match, user) -> list[dict]``: ``{"seat", "url", "label"}`` rows for the seats ``user`` may look behind
#: (bots_api: the turn log of the viewer's own bot). The replay page's script fetches ``url?match=M&deal=D&ply=P``
#: at that seat's plies; the url must itself check who asks (the rows only decide which buttons are shown).
REPLAY_TOOLS: list[Callable] = []


def register_replay_tool(tool: Callable) -> None:
    """Add a replay tool (see ``REPLAY_TOOLS``)."""
    if tool not in REPLAY_TOOLS:
        REPLAY_TOOLS.append(tool)


def replay_tools(*, match, user) -> list[dict]:
    """Every registered tool's rows for ``user`` (anonymous: none) at ``match``."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    return [row for tool in REPLAY_TOOLS for row in tool(match=match, user=user)]


# ---- the match list ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MatchGroup:
    """A filter of the match list another app contributes: ``lookup(value)`` gives the ``Q`` over ``Match`` selecting
    the group's matches, or raises ``games.browse.BadFilter`` when ``value`` names no group; ``help`` documents the
    query parameter."""

    help: str
    lookup: Callable


#: name (the query parameter) -> MatchGroup (tournaments: "ladder", "tournament")
MATCH_GROUPS: dict[str, MatchGroup] = {}


def register_match_group(name: str, group: MatchGroup) -> None:
    """Add (or replace) the filter ``name`` of the match list."""
    MATCH_GROUPS[name] = group
