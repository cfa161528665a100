"""Suite-wide settings. Area-specific fixtures live in each tests/<area>/conftest.py."""

import os

from hypothesis import HealthCheck, settings

# CI machines are 2-core and shared: no per-example deadline, a bounded number of examples.
settings.register_profile(
    "default",
    deadline=None,
    max_examples=int(os.environ.get("DG_HYPOTHESIS_EXAMPLES", "150")),
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("thorough", parent=settings.get_profile("default"), max_examples=2000)
settings.load_profile(os.environ.get("DG_HYPOTHESIS_PROFILE", "default"))
