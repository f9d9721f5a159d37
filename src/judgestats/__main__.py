"""Allow ``python -m judgestats``."""

import sys

from judgestats.cli import main

sys.exit(main())
