"""``python -m bots_api.localrun`` is ``python -m eights_engine.bots.localrun`` (its old name): localrun moved into
the engine package, so bot authors run it with the engine alone (engine/README.md)."""

import sys

from eights_engine.bots.localrun import main

if __name__ == "__main__":
    sys.exit(main())
