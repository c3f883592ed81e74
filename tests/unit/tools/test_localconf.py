"""tools/alluxio/localconf.py builds the local cluster's real Alluxio settings from the bundle's
own files: every built-in tuning profile gives chart values, and a name that is not one is
refused with the list (the local cluster's start would otherwise fail far from the cause)."""

import os
import sys

import pytest
import yaml

TOOLS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools", "alluxio")
sys.path.insert(0, TOOLS)
import localconf  # noqa: E402  pylint: disable=wrong-import-position

with open(os.path.join(localconf.REPO, "roles", "fluidops", "defaults", "main", "tuning_profiles.yml"), encoding="utf-8") as handle:
    BUILT_IN = sorted(yaml.safe_load(handle)["fluidops_builtin_tuning_profiles"])


@pytest.mark.parametrize("profile", BUILT_IN)
def test_every_built_in_profile_gives_chart_values(profile):
    values, _unused = localconf.chart_values(profile, "file:///underFSStorage", "2.9.3")
    assert values["properties"]["alluxio.master.mount.table.root.ufs"] == "file:///underFSStorage"


def test_a_profile_that_is_not_built_in_is_refused_with_the_list():
    with pytest.raises(SystemExit) as refused:
        localconf.chart_values("dl-trainig", "file:///underFSStorage", "2.9.3")
    assert "FLUIDOPS_ALLUXIO_PROFILE=dl-trainig is not a built-in profile" in str(refused.value)
    assert "dl-training" in str(refused.value)
