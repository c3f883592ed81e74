"""Stands in for pip's get-pip.py, which ansible-test downloads from a host not reachable here
(ci-files.testing.ansible.com) to put pip into each empty venv it makes for a sanity test.
tools/checks/ansible_test.sh puts this file where ansible-test keeps the downloaded one: the
Python's own ensurepip installs the pip bundled with it, which then installs what ansible-test
asks for (its pinned pip, `pip==24.2` for ansible-core 2.19) from PyPI."""

import subprocess
import sys

# get-pip.py's own options: ensurepip adds no wheel; setuptools is removed after.
GET_PIP_OPTIONS = ("--no-setuptools", "--no-wheel")

args = [arg for arg in sys.argv[1:] if arg not in GET_PIP_OPTIONS]
subprocess.run([sys.executable, "-m", "ensurepip", "--default-pip"], check=True, stdout=subprocess.DEVNULL)
subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *args], check=True)
if "--no-setuptools" in sys.argv[1:]:
    subprocess.run([sys.executable, "-m", "pip", "uninstall", "--quiet", "--yes", "setuptools"], check=True)
