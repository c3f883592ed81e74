"""Run the checks through podman exec instead of one Ansible module call per command.

Molecule hands testinfra its Ansible inventory; testinfra has no mapping for the podman
connection and would fall back to running every check as an Ansible ad-hoc call (about a
second each). The containers carry the inventory names, so the native podman backend
reaches the same hosts directly.
"""

import pytest
import testinfra


@pytest.fixture
def host(_testinfra_host):
    return testinfra.get_host("podman://" + _testinfra_host.backend.host)
