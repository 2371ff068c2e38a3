"""Hooks other apps listen to (``games`` never imports them)."""

from django.dispatch import Signal

#: Sent inside the transaction that finishes a match, with ``match`` (a finished ``Match``).
#: Receivers (ladder ratings, tournament brackets) write in the same transaction.
match_finished = Signal()
