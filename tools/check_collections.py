"""Fail when an installed collection differs from the pin in requirements.yml."""
import json
import os
import subprocess
import sys

import yaml


def installed_collections():
    out = subprocess.run(
        [os.path.join(os.path.dirname(sys.executable), "ansible-galaxy"), "collection", "list", "--format", "json"],
        check=True, capture_output=True, text=True,
    ).stdout
    found = {}
    # Several collection paths may hold a collection; the first one listed wins, as in Ansible.
    for path_entries in json.loads(out).values():
        for name, info in path_entries.items():
            found.setdefault(name, info.get("version"))
    return found


def main(requirements_file):
    with open(requirements_file, encoding="utf-8") as handle:
        wanted = yaml.safe_load(handle)["collections"]
    found = installed_collections()
    errors = []
    for entry in wanted:
        have = found.get(entry["name"])
        if have != entry["version"]:
            errors.append(f"{entry['name']}: requirements.yml pins {entry['version']}, installed {have or 'nothing'}")
    if errors:
        sys.exit("collection pins do not match:\n  " + "\n  ".join(errors))
    print("collections match requirements.yml: " + ", ".join(f"{e['name']} {e['version']}" for e in wanted))


if __name__ == "__main__":
    main(sys.argv[1])
