"""Links from the replay viewer to what only one viewer may see, contributed by other apps (``games`` never imports
them): each registered tool is ``fn(*, match, user) -> list[dict]`` giving ``{"seat", "url", "label"}`` rows for
the seats ``user`` may look behind (bots_api: the turn log of the viewer's own bot, "what my bot saw here"). The
replay page passes the rows to its script, which fetches ``url?match=M&deal=D&ply=P`` at that seat's plies; the url
must itself check who asks (the rows only decide which buttons are shown)."""

from __future__ import annotations

from typing import Callable

ReplayTool = Callable[..., list[dict]]
REPLAY_TOOLS: list[ReplayTool] = []


def register_replay_tool(tool: ReplayTool) -> None:
    """Add ``tool`` (call from ``AppConfig.ready()``; a tool registered twice is kept once)."""
    if tool not in REPLAY_TOOLS:
        REPLAY_TOOLS.append(tool)


def replay_tools(*, match, user) -> list[dict]:
    """Every registered tool's rows for ``user`` (anonymous: none) at ``match``."""
    if user is None or not getattr(user, "is_authenticated", False):
        return []
    return [row for tool in REPLAY_TOOLS for row in tool(match=match, user=user)]
