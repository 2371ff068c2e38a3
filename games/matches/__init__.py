"""Matches: their lifecycle (``lifecycle``) and their plies (``plies``); ``games.services`` gathers both for callers."""
