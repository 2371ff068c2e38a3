"""``python -m games.engine ...`` is ``python -m eights_engine ...`` (the engine's command line, its old name)."""

import sys

from eights_engine.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
