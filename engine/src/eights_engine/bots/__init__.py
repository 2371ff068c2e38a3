"""The bot tools: the bot protocol (request bodies, schema, signing), the HTTP calls to a bot endpoint, the
conformance check (``python -m eights_engine.bots.check URL``) and local matches (``python -m
eights_engine.bots.localrun URL URL``). They need ``httpx`` and ``jsonschema`` (``pip install "./engine[bots]"``); the
engine proper (every module outside this package) imports none of them.
"""
