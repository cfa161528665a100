"""``python -m dispatchguard.coverage_gate``: the gate as a hook's entry point."""

from dispatchguard.coverage_gate.cli import main

raise SystemExit(main())
