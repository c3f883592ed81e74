"""Helm values overrides."""

from ansible_collections.fluidops.accel.plugins.filter.helm_values import FilterModule, override_key


def test_override_key_reaches_every_anchored_copy():
    chart_values = {
        "imagePrefix": "fluidcloudnative",
        "crdUpgrade": {"enabled": True, "imagePrefix": "fluidcloudnative", "imageName": "fluid-crd-upgrader"},
        "csi": {"registrar": {"imagePrefix": "fluidcloudnative"}, "plugins": {"imagePrefix": "fluidcloudnative"}, "enabled": True},
        "webhook": {"enabled": True},
        "tolerations": [{"operator": "Exists"}],
    }
    assert override_key(chart_values, "imagePrefix", "mirror.example.com/fluid") == {
        "imagePrefix": "mirror.example.com/fluid",
        "crdUpgrade": {"imagePrefix": "mirror.example.com/fluid"},
        "csi": {"registrar": {"imagePrefix": "mirror.example.com/fluid"}, "plugins": {"imagePrefix": "mirror.example.com/fluid"}},
    }


def test_override_key_of_absent_key_is_empty():
    assert FilterModule().filters()["override_key"]({"a": {"b": 1}}, "imagePrefix", "x") == {}
