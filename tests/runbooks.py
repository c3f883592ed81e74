"""The runbooks in docs/runbooks as data, for the tests that keep them true.

A runbook is a Markdown file. A fenced block whose info string reads ``sh runnable id=<id>`` is a
command the cluster tests run against the local cluster (tests/nodes/test_runbooks.py and others); a
``text expect`` block right after it lists lines its output holds on a healthy cluster, and a
``text symptom`` block lines it shows while the failure the runbook is about is present. Every
other block (plain ``sh``, ``yaml``, ``text``) is for reading only: edits of the inventory and
commands that only mean something on a real node.
"""

import os
import re
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNBOOKS = os.path.join(REPO, "docs", "runbooks")
INDEX = os.path.join(RUNBOOKS, "README.md")
# Runbooks under this folder answer a symptom; the others are procedures.
TROUBLESHOOTING = "troubleshooting"

_FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
_ID = re.compile(r"^[a-z][a-z0-9-]*$")


@dataclass(frozen=True)
class Fence:
    """A fenced block: where it opens (1-based), its info string, its text, the ``##`` section it is in."""

    line: int
    info: str
    text: str
    section: str

    @property
    def words(self):
        return self.info.split()

    @property
    def language(self):
        return self.words[0] if self.words else ""


@dataclass(frozen=True)
class Block:
    """A runnable block, and the lines its output should hold (``expect``: healthy; ``symptom``:
    while the failure is present)."""

    file: str
    line: int
    id: str
    text: str
    section: str
    expect: tuple = ()
    symptom: tuple = ()

    @property
    def where(self):
        return "%s:%d (%s)" % (self.file, self.line, self.id)


@dataclass(frozen=True)
class Runbook:
    file: str  # relative to the repository
    title: str
    sections: tuple  # the ## headings, in order
    section_text: dict  # heading -> its text, blocks included
    fences: tuple
    blocks: tuple
    problems: tuple  # what could not be read as the convention says

    @property
    def troubleshooting(self):
        return self.file.split("/")[-2] == TROUBLESHOOTING


def runbook_files():
    """Every runbook, as paths relative to the repository; the index is not one."""
    found = []
    for directory, _dirs, names in os.walk(RUNBOOKS):
        found += [os.path.relpath(os.path.join(directory, name), REPO) for name in names
                  if name.endswith(".md") and os.path.join(directory, name) != INDEX]
    return sorted(found)


def _fences(lines):
    """(fences, headings, problems) of a Markdown file's lines."""
    fences, headings, problems = [], [], []
    section, index = "", 0
    while index < len(lines):
        match = _FENCE.match(lines[index])
        if not match:
            if lines[index].startswith("## "):
                section = lines[index][3:].strip()
                headings.append((section, index + 1))
            index += 1
            continue
        indent, marker, info = len(match.group(1)), match.group(2), match.group(3).strip()
        body, end = [], index + 1
        while end < len(lines) and not re.match(r"^ *%s%s* *$" % (re.escape(marker), re.escape(marker[0])), lines[end]):
            text = lines[end]
            body.append(text[indent:] if text[:indent].strip() == "" else text.lstrip())
            end += 1
        if end == len(lines):
            problems.append("line %d: the block opened here is never closed" % (index + 1))
        fences.append(Fence(index + 1, info, "\n".join(body) + "\n" if body else "", section))
        index = end + 1
    return fences, headings, problems


def _attributes(fence):
    """{'runnable': True, 'id': ..., 'expect': True, ...} from an info string's words after the language."""
    found = {}
    for word in fence.words[1:]:
        key, _separator, value = word.partition("=")
        found[key] = value if value else True
    return found


def parse(path):
    """The runbook at ``path`` (absolute or relative to the repository)."""
    absolute = path if os.path.isabs(path) else os.path.join(REPO, path)
    relative = os.path.relpath(absolute, REPO)
    with open(absolute, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    fences, headings, problems = _fences(lines)
    title = next((line[2:].strip() for line in lines if line.startswith("# ")), "")

    blocks, current = [], None  # current: [fence, id, expect, symptom] of the last runnable block
    for fence in fences:
        attributes = _attributes(fence)
        known = {"runnable", "id", "expect", "symptom"}
        for key in sorted(set(attributes) - known):
            problems.append("line %d: unknown word %r in the info string %r" % (fence.line, key, fence.info))
        if attributes.get("runnable"):
            if fence.language != "sh":
                problems.append("line %d: a runnable block is sh, not %r" % (fence.line, fence.language))
            block_id = attributes.get("id")
            if not isinstance(block_id, str) or not _ID.match(block_id):
                problems.append("line %d: a runnable block needs id=<lower-case-words> (has %r)" % (fence.line, block_id))
            if not fence.text.strip():
                problems.append("line %d: runnable block %s is empty" % (fence.line, block_id))
            if current:
                blocks.append(current)
            current = [fence, block_id, (), ()]
        elif attributes.get("expect") or attributes.get("symptom"):
            kind = "expect" if attributes.get("expect") else "symptom"
            lines_wanted = tuple(line.strip() for line in fence.text.splitlines() if line.strip())
            if current is None:
                problems.append("line %d: a %s block stands after no runnable block" % (fence.line, kind))
            elif current[2 if kind == "expect" else 3]:
                problems.append("line %d: runnable block %s has a second %s block" % (fence.line, current[1], kind))
            else:
                current[2 if kind == "expect" else 3] = lines_wanted
        elif current:
            # Another block between a runnable one and its expect/symptom blocks ends them.
            blocks.append(current)
            current = None
    if current:
        blocks.append(current)

    runnable = tuple(Block(relative, fence.line, block_id, fence.text, fence.section, expect, symptom)
                     for fence, block_id, expect, symptom in blocks)
    section_text, order = {}, [name for name, _unused in headings]
    for number, (name, line) in enumerate(headings):
        end = headings[number + 1][1] - 1 if number + 1 < len(headings) else len(lines)
        section_text[name] = "\n".join(lines[line:end])
    return Runbook(relative, title, tuple(order), section_text, tuple(fences), runnable, tuple(problems))


def runbooks():
    return [parse(path) for path in runbook_files()]


def runnable_blocks():
    """{id: Block} of every runbook; an id used twice raises."""
    found = {}
    for book in runbooks():
        for block in book.blocks:
            if block.id in found:
                raise ValueError("runnable block id %s in %s and %s" % (block.id, found[block.id].where, block.where))
            found[block.id] = block
    return found


def folded(text):
    """White space folded to single spaces: column widths and line wrapping differ between runs."""
    return " ".join(text.split())


def missing(output, lines):
    """The lines (of an expect or symptom block) that ``output`` does not hold, white space folded."""
    text = folded(output)
    return [line for line in lines if folded(line) not in text]
