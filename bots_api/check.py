"""``python -m bots_api.check`` is ``python -m eights_engine.bots.check`` (its old name): the conformance check moved into
the engine package, so bot authors run it with the engine alone (engine/README.md)."""

import sys

from eights_engine.bots.check import main

if __name__ == "__main__":
    sys.exit(main())
