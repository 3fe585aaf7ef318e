"""``python -m m2bridge.cli``: the ``m2bridge`` command."""

import sys

from m2bridge.cli.main import main

sys.exit(main())
