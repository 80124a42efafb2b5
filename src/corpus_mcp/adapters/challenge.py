"""A freeCodeCamp challenge file (pure): its front matter and its ``# --x--`` parts.

fcc2zim stores each challenge as the curriculum's own Markdown: a YAML front matter
(``title``, ``dashedName``, ...) then parts opened by marker headings, ``# --description--``,
``# --instructions--``, ``# --hints--`` (each test's sentence followed by its code),
``# --seed--`` (with ``## --seed-contents--`` and the like inside) and ``# --solutions--``
(solutions apart by ``---``). The markers are the curriculum's syntax, not text: each part
becomes a section titled in words, the hints a list, the code fenced blocks.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

__all__ = ["Challenge", "Part", "read_challenge"]

_MARKER: Final = re.compile(r"^(?P<level>#{1,2})\s+--(?P<name>[a-zA-Z][\w-]*)--\s*$")
_FENCE: Final = re.compile(r"^\s*(```|~~~)")
_FRONT_KEY: Final = re.compile(r"^(?P<key>[A-Za-z][\w-]*)\s*:\s*(?P<value>.*)$")
_RULE: Final = re.compile(r"^\s*---\s*$")
# What a part is to the reader: the curriculum's marker names in words.
_TITLES: Final = {
    "description": "Description",
    "instructions": "Instructions",
    "hints": "Tests",
    "seed": "Starting code",
    "seed-contents": "Starting code",
    "before-user-code": "Code run before yours",
    "after-user-code": "Code run after yours",
    "solutions": "Solution",
    "questions": "Questions",
    "text": "Question",
    "answers": "Answers",
    "video-solution": "Answer",
    "notes": "Notes",
    "explanation": "Explanation",
    "transcript": "Transcript",
    "assignment": "Assignment",
    "scene": "Scene",
}


class Part(NamedTuple):
    """One ``# --name--`` part: its id, title, Markdown, and its ``## --x--`` parts."""

    id: str
    title: str
    markdown: str
    children: tuple[Part, ...] = ()


class Challenge(NamedTuple):
    front: dict[str, str]
    parts: tuple[Part, ...]

    @property
    def title(self) -> str:
        return self.front.get("title", "")


def read_challenge(text: str) -> Challenge:
    """The front matter and the parts of a challenge file (any Markdown reads: a file
    without front matter or markers is one untitled part)."""
    front, body = _front_matter(text)
    tops: list[tuple[str, list[str], list[tuple[str, list[str]]]]] = []
    lead: list[str] = []
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        marker = None if fenced else _MARKER.match(line)
        if marker is not None and (marker["level"] == "#" or not tops):
            tops.append((marker["name"].lower(), [], []))
        elif marker is not None:
            tops[-1][2].append((marker["name"].lower(), []))
        elif tops and tops[-1][2]:
            tops[-1][2][-1][1].append(line)
        elif tops:
            tops[-1][1].append(line)
        else:
            lead.append(line)
    parts: list[Part] = []
    if "\n".join(lead).strip():
        parts.append(Part("", "", _tidy(lead, "")))
    used: set[str] = set()
    for name, lines, nested in tops:
        own = _tidy(lines, name)
        if not own and len(nested) == 1:  # ``# --seed--`` holding only its contents
            parts.append(Part(_unique(name, used), _title(name), _tidy(nested[0][1], name)))
            continue
        children = tuple(
            Part(_unique(child, used), _title(child), _tidy(child_lines, child))
            for child, child_lines in nested
        )
        parts.append(Part(_unique(name, used), _title(name), own, children))
    return Challenge(front, tuple(parts))


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    """``key: value`` lines between the opening ``---`` lines (the curriculum's YAML is
    flat scalars), and the text after them."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or not _RULE.match(lines[0]):
        return {}, text
    front: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=1):
        if _RULE.match(line):
            return front, "\n".join(lines[number + 1 :])
        found = _FRONT_KEY.match(line)
        if found:
            front[found["key"]] = _scalar(found["value"])
    return {}, text  # no closing rule: not front matter


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def _title(name: str) -> str:
    return _TITLES.get(name) or name.replace("-", " ").capitalize()


def _unique(name: str, used: set[str]) -> str:
    candidate, number = name, 2
    while candidate in used:
        candidate, number = f"{name}-{number}", number + 1
    used.add(candidate)
    return candidate


def _tidy(lines: list[str], name: str) -> str:
    """A part's Markdown: the hints as a list (each test's sentence an item, its code
    under it), the solutions' ``---`` separators gone, blank runs collapsed."""
    if name == "hints":
        return _hint_list(lines)
    if name == "solutions":
        lines = [line for line in lines if not _RULE.match(line)]
    return _collapse(lines)


def _hint_list(lines: list[str]) -> str:
    """``sentence`` + code block, repeated: ``- sentence`` items with the code indented
    under each (a sentence's lines joined; a test without code stays an item; code
    without a sentence before it is an item of its own)."""
    items: list[tuple[list[str], list[str]]] = []
    fenced = False
    open_sentence = False  # the last line was a sentence's: the next one continues it
    for line in lines:
        opening = _FENCE.match(line) is not None
        if fenced or opening:
            if not items:
                items.append(([], []))
            items[-1][1].append(line)
            fenced = fenced != opening
            open_sentence = False
        elif line.strip():
            if open_sentence:
                items[-1][0].append(line.strip())
            else:
                items.append(([line.strip()], []))
            open_sentence = True
        else:
            open_sentence = False
    rendered = []
    for sentence, code in items:
        head = "- " + " ".join(sentence) if sentence else "-"
        # An unclosed fence (a broken file) may end in blank lines: not the item's.
        body = "\n".join("  " + line if line.strip() else "" for line in code).rstrip()
        rendered.append(f"{head}\n\n{body}" if body else head)
    return "\n\n".join(rendered)


def _collapse(lines: list[str]) -> str:
    out: list[str] = []
    for line in lines:
        if not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line.rstrip())
    return "\n".join(out).strip()
