"""Entry point of a worker process: ``python .../kernelgym/judge/bootstrap.py RESULT_FD``.

Starts :mod:`kernelgym.judge.worker` without running the ``kernelgym`` package's ``__init__`` (which imports
Gymnasium and registers the environments): an untrusted worker imports only what a worker needs, the judge and
the task loader. The script's own folder is removed from the import path first, so no module of this folder can
shadow a standard-library module of the same name (``profile``).
"""

import os
import sys
import types

if __name__ == "__main__":
    sys.path.pop(0)
    _root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, _root)
    _package = types.ModuleType("kernelgym")
    _package.__path__ = [os.path.join(_root, "kernelgym")]
    sys.modules["kernelgym"] = _package
    from kernelgym.judge.worker import main

    sys.exit(main())
