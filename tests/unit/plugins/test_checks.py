# -*- coding: utf-8 -*-
"""module_utils/common/checks.py: the name grammars every layer reads, and the test plugin that
gives them to the roles' asserts."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError, name_problem, require_name, typed
from ansible_collections.fluidops.accel.plugins.test import k8s_name

K8S_NAME = k8s_name.TestModule().tests()["k8s_name"]


@pytest.mark.parametrize("value, rule, good", [
    ("imagenet", "label", True), ("a" * 63, "label", True), ("a" * 64, "label", False), ("Bad_Name", "label", False),
    ("-x", "label", False), ("x-", "label", False), ("1k", "label", True), ("1k", "dns1035", False),
    ("a.b", "label", False), ("a.b", "subdomain", True), ("a" * 254, "subdomain", False), (7, "label", False), (None, "label", False),
    ("example.com/gpu-pool", "label_key", True), ("gpu_pool", "label_key", True), ("gpu pool", "label_key", False),
    ("a/b/c", "label_key", False), ("Example.com/x", "label_key", False), (7, "label_key", False),
])
def test_the_roles_test_and_the_builders_read_one_grammar(value, rule, good):
    assert K8S_NAME(value, rule) is good
    assert (name_problem(value, rule) is None) is good


def test_a_bad_name_is_named_with_its_variable_and_what_is_allowed():
    with pytest.raises(InputError, match=r"^alluxio_oss_secret=OSS keys is not a DNS-1123 label \(at most 63 lower case letters"):
        require_name("OSS keys", "alluxio_oss_secret")
    with pytest.raises(InputError, match=r"^datasets_list\[0\].name=\(unset\) is not a DNS-1123 label"):
        require_name("", "datasets_list[0].name")
    assert require_name("imagenet", "datasets_list[0].name") == "imagenet"


def test_an_unknown_grammar_is_refused_by_name():
    with pytest.raises(AnsibleFilterError, match="rule=dns is not one of dns1035, label, label_key, subdomain"):
        K8S_NAME("x", "dns")


def test_typed_refuses_a_string_for_a_list_by_name():
    with pytest.raises(InputError, match=r"^training_tolerations must be a list, got a string \(gpu\)$"):
        typed("gpu", list, "training_tolerations")
    assert typed(None, list, "x", default=[]) == []
