"""The engine's old import path: ``games.engine`` is the ``eights_engine`` package (``engine/`` in this repository).

The rules engine is its own package now (``pip install ./engine``; engine/README.md), and the service imports it as
``eights_engine``. Code written against ``games.engine`` (DESIGN.md, "Engine API") keeps working: this module is
``eights_engine``'s public API, and each engine module is registered under both names, so
``from games.engine.deal import Deal`` gives the very same class as ``from eights_engine.deal import Deal``
(one ``IllegalAction`` to catch, one set of module globals to patch). The bot tools (``eights_engine.bots``) have no
old name here: they were ``bots_api.check`` and ``bots_api.localrun``, which still run as commands.
"""

import importlib
import pkgutil
import sys

import eights_engine
from eights_engine import *  # noqa: F401,F403 (the public API under its old name)
from eights_engine import __all__  # noqa: F401

for _info in pkgutil.iter_modules(eights_engine.__path__):
    if _info.name != "__main__" and not _info.ispkg:
        _module = importlib.import_module(f"eights_engine.{_info.name}")
        sys.modules[f"{__name__}.{_info.name}"] = _module
        globals()[_info.name] = _module
