"""The bot tools: the bot protocol (request bodies, schema, signing), the HTTP calls to a bot endpoint, the
conformance check (``python -m eights_engine.bots.check URL``) and local matches (``python -m
eights_engine.bots.localrun URL URL``). They need ``httpx`` and ``jsonschema`` (``pip install "./engine[bots]"``); the
engine proper (every module outside this package) imports none of them.
"""

try:  # a bare `pip install ./engine` has the engine without them: say which extra brings them
    import httpx  # noqa: F401
    import jsonschema  # noqa: F401
except ModuleNotFoundError as exc:
    raise ModuleNotFoundError(f"the bot tools (eights-check, eights-localrun) need {exc.name}: pip install "
                              "\"eights-engine[bots]\" (from a clone of the repository: pip install \"./engine[bots]\")",
                              name=exc.name) from None
