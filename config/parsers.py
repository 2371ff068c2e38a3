"""The API's request parsers (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``): DRF's, with JSON's hardened.

A module of its own: DRF imports it while reading its settings, so it imports nothing of the project's."""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]``), also refusing a body nested too deeply for
    Python's parser (``'[' * 5000 + ']' * 5000`` raises ``RecursionError``, which DRF's does not catch: a 500) with
    400 ``parse_error``, like any other body that is not JSON."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply (arrays and objects inside one "
                             "another); this API's bodies are at most a few levels deep") from None
