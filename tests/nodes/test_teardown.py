"""The teardown runbook ends the deployment test_scale_nodes.py left; then every runnable block
of the runbooks must have been run by a test of this session (the deploy runbook's are
test_phases.py's)."""

from conftest import wait_until
from pods import kubectl
from runbook_shell import not_run, run


def test_teardown_leaves_no_fluid_object_pv_or_pvc_and_a_second_one_changes_nothing(kubeconfig, shell):
    run(shell, "teardown-preview")
    run(shell, "teardown-run")
    for kind in ("dataloads", "datasets", "alluxioruntimes", "thinruntimes", "thinruntimeprofiles", "mpijobs.kubeflow.org", "pvc", "pv"):
        wait_until(lambda k=kind: not kubectl(kubeconfig, "get", k, "--all-namespaces", "-o", "name").stdout, 180, every=2,
                   what="no %s left" % kind)
    output = run(shell, "teardown-run")  # the runbook: a second run changes nothing (no task says changed)
    assert "changed: [" not in output, output[-3000:]
    run(shell, "teardown-check-objects")
    assert "fluid-1.0.8" not in run(shell, "teardown-check-release")
    # The metrics objects of the datasets and of Fluid's controllers went with them (ServiceMonitors
    # too: test_phases_metrics.py left the Prometheus Operator's CRD).
    assert not kubectl(kubeconfig, "get", "services,servicemonitors", "--all-namespaces", "-l", "fluidops.io/metrics", "-o", "name").stdout


def test_every_runnable_block_of_the_runbooks_was_run():
    # Run the whole suite: a block added to a runbook and run by no test fails here (and, without a
    # cluster, in tests/unit/test_runbooks.py when no test names it). The upgrade runbook's run on
    # a cluster of their own, from the release before (tests/upgrade), which checks them itself.
    assert [where for where in not_run() if not where.startswith("docs/runbooks/upgrade-fluid.md")] == []
