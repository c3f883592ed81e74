"""Every playbook run of the integration tests is read for warnings after the test that made it
(tests/run_warnings.py): one outside the allow-list fails that test."""

from run_warnings import no_unlisted_warnings  # noqa: F401  pylint: disable=unused-import
