"""A Python program of tools/ run as the Makefile and the scripts run it: as a module
(python -m alluxio.localconf), the collection (.collections) and tools/ on its PYTHONPATH, the
paths pytest.ini gives the tests themselves."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHONPATH = os.pathsep.join(os.path.join(REPO, part) for part in (".collections", "tools"))


def python(*args, check=False):
    """The CompletedProcess of ``python ARGS`` with that PYTHONPATH, its output captured as text."""
    return subprocess.run([sys.executable, *args], env=dict(os.environ, PYTHONPATH=PYTHONPATH), capture_output=True, text=True, check=check)


def run_module(module, *args, check=False):
    """``python -m MODULE ARGS``."""
    return python("-m", module, *args, check=check)
