"""``python -m kernelgym.cli``: the ``kernelgym`` command."""

import sys

from kernelgym.cli.main import main

sys.exit(main())
