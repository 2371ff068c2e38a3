"""Hooks other apps listen to (``games`` never imports them)."""

from django.dispatch import Signal

#: Sent inside the transaction that finishes a match, with ``match`` (a finished ``Match``).
#: Receivers (ladder ratings, tournament brackets) write in the same transaction.
match_finished = Signal()

#: Sent inside the transaction that creates a match, with ``match`` (a new running ``Match``) and ``players`` (its
#: players in seat order). Receivers write in the same transaction (bots_api: the version each bot last reported).
match_created = Signal()
