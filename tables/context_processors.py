"""Every page shows the person (or guest) the challenges and table seats kept for them (``templates/base.html``)."""

from __future__ import annotations

from django.db import DatabaseError

from games.models import Player


def invitations(request) -> dict:
    """``invitations``: the waiting tables with a seat kept for this browser's person or guest (one small query;
    none without a player). Lazy: evaluated only by a page that shows them."""
    from django.utils.functional import SimpleLazyObject

    from games.people.guests import session_guest
    from tables.services import invitations_for

    def read():
        try:
            if getattr(request, "user", None) is not None and request.user.is_authenticated:
                player = Player.objects.filter(user=request.user, kind=Player.Kind.HUMAN).first()
            else:
                player = session_guest(request) if hasattr(request, "session") else None
            return invitations_for(player)
        except DatabaseError:  # the page is still worth showing without them (the database is away)
            return []

    return {"invitations": SimpleLazyObject(read)}
