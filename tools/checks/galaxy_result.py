"""Reads galaxy-importer's log (python -m galaxy_importer.main --print-result): the result's JSON
follows its log lines. Fails when a module's documentation was not read, else prints what it
imported. Run by galaxy_import.sh: galaxy_result.py IMPORT_LOG"""

import json
import sys


def main(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    result = json.loads(text[text.index("\n{") + 1:])
    contents = result["docs_blob"]["contents"]
    undocumented = [c["content_name"] for c in contents if c["content_type"] == "module" and not c.get("doc_strings")]
    if undocumented:
        sys.exit("galaxy-importer read no documentation of %s" % undocumented)
    print("galaxy-importer ok: %s %s, %d plugins and roles, every module documented, no warning, no error"
          % (result["metadata"]["name"], result["metadata"]["version"], len(contents)))


if __name__ == "__main__":
    main(sys.argv[1])
