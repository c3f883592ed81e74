"""tests/run_warnings.py: the warnings read from a run's output as ansible-core 2.19 prints them, and
the allow-list applied to them."""

from run_warnings import DEPRECATIONS_OFF, playbooks_in, unlisted, warnings_in

# As ansible-core 2.19 prints them (Display._deprecated and Display._warning), among a run's lines.
POSIX = ("[DEPRECATION WARNING]: Passing `warnings` to `exit_json` or `fail_json` is deprecated. This feature will be "
         "removed from ansible-core version 2.23. Use `AnsibleModule.warn` instead.")
HELM_DIFF = ("[WARNING]: The default idempotency check can fail to report changes in certain cases. Install helm diff >= 3.4.1 "
             "for better results.")
OUTPUT = """
TASK [fluidops.accel.gpu_node : Mount the cache] *******************************
%s
%s
changed: [gpu-node-1]

TASK [fluidops.accel.fluid : Install Fluid] ************************************
%s
ok: [localhost]
""" % (DEPRECATIONS_OFF, POSIX, HELM_DIFF)


def test_reads_each_warning_and_deprecation_line():
    assert warnings_in(OUTPUT.replace("\n", "\r\n")) == [DEPRECATIONS_OFF, POSIX, HELM_DIFF]
    assert warnings_in("ok: [localhost]\nmsg: '[WARNING]: quoted in a result'\n") == []


def test_the_allow_list_takes_the_posix_deprecation_and_leaves_the_rest():
    assert unlisted(OUTPUT) == [HELM_DIFF]
    # The line ahead of a deprecation passes only where a deprecation was printed.
    assert unlisted(DEPRECATIONS_OFF + "\n") == [DEPRECATIONS_OFF]
    # Another deprecation is not the allowed one.
    other = "[DEPRECATION WARNING]: The 'foo' option is deprecated."
    assert unlisted(DEPRECATIONS_OFF + "\n" + other + "\n") == [other]


def test_a_test_can_expect_a_warning_it_makes():
    assert unlisted(OUTPUT, expected=[r"\[WARNING\]: The default idempotency check"]) == []


def test_the_playbooks_a_runbook_block_runs():
    block = 'ansible-playbook playbooks/datasets.yml playbooks/warmup.yml -i "$INVENTORY"\nkubectl get dataset\n'
    assert playbooks_in(block) == ["datasets.yml", "warmup.yml"]
    assert playbooks_in("ansible-playbook site.yml -i inventory/local | tee log") == ["site.yml"]
    assert playbooks_in("ansible-playbook playbooks/teardown.yml -i x \\\n  -e @more.yml -e teardown_confirm=true\nkubectl apply -f pod.yml") \
        == ["teardown.yml"]
    assert playbooks_in("kubectl get pods") == []
