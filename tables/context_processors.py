"""Every page shows the person (or guest) the challenges and table seats kept for them (``templates/base.html``)."""

from __future__ import annotations

from django.db import DatabaseError


def invitations(request) -> dict:
    """``invitations``: the waiting tables with a seat kept for this browser's person or guest (one small query;
    none without a player). Lazy: evaluated only by a page that shows them."""
    from django.utils.functional import SimpleLazyObject

    from games.people.guests import session_guest
    from tables.services import invitations_for

    def read():
        try:
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated:
                return invitations_for(user=user)
            return invitations_for(session_guest(request) if hasattr(request, "session") else None)
        except DatabaseError:  # the page is still worth showing without them (the database is away)
            return []

    return {"invitations": SimpleLazyObject(read)}
