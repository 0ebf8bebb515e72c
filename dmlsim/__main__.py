"""``python -m dmlsim``: the command line (same as the ``dmlsim`` script)."""

import sys

from dmlsim.cli import main

sys.exit(main())
