import sys

from dispatchguard.cli.main import main

sys.exit(main())
