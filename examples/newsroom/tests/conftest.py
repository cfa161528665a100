"""The example's tests import the fixed twin's `newsroom` package (the violating twin is only linted)."""

import sys
from pathlib import Path

FIXED = Path(__file__).resolve().parent.parent / "fixed"
if str(FIXED) not in sys.path:
    sys.path.insert(0, str(FIXED))
