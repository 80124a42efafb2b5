"""Where a section's Markdown is cut when it alone is larger than a fetch answer.

A cut ends where a block closes (a paragraph, a list, a table or a fenced code block:
a blank line outside a fence, or a fence's closing line), failing that at a line break
(a list item, a table row, a line of code: a fence cut inside is closed in the head and
opened again in the rest), then at a sentence's end; at a word break, or anywhere,
only when one sentence is larger than the room. A boundary is taken when it keeps at
least half the room; else the latest boundary of any of these kinds.

The rest starts at an offset of the section's text, which names it (:func:`rest`): the
same text cut again gives the same offsets, so a continuation one fetch hands out is
found by the next. Pure functions over strings.
"""

from __future__ import annotations

import bisect
import re

import msgspec

__all__ = ["Cut", "cut", "rest"]

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_SENTENCE_END = re.compile(r"[.!?][\"')\]]*(?=\s)")


class Cut(msgspec.Struct, frozen=True, gc=False):
    """The head of a text that fits, and the offset in the text where the rest starts
    (``len(text)`` when nothing is left)."""

    head: str
    rest_at: int


def cut(text: str, room: int, start: int = 0) -> Cut:
    """``text`` from ``start`` on (:func:`rest`) whole if it fits in ``room``
    characters, else its head up to the best boundary that fits (see the module's
    rules). The head holds at least one character of the text, so that cutting the rest
    again always moves on."""
    lines = _Lines(text)
    prefix = lines.reopen(start)
    if len(prefix) + len(text) - start <= room:
        return Cut(head=prefix + text[start:], rest_at=len(text))
    room = max(room - len(prefix), 1)
    block, line = lines.boundaries(start, room)
    half = start + room // 2
    for head_end, rest_at in (block, line):
        if head_end >= half:
            return lines.cut_at(prefix, start, head_end, rest_at)
    sentence = _last_sentence_end(text, lines, start, room)
    if sentence >= half:
        return lines.cut_at(prefix, start, sentence, _next_word(text, sentence))
    head_end, rest_at = max(block, line, (sentence, _next_word(text, sentence)))
    if head_end > start:
        return lines.cut_at(prefix, start, head_end, rest_at)
    # One sentence (or line of code) larger than the room: at a word break, else anywhere.
    limit = start + max(room - len(lines.closer(start + room)), 1)
    space = text.rfind(" ", start + 1, limit + 1)
    end = start + len(text[start:space].rstrip()) if space > start else start
    if end == start:
        return lines.cut_at(prefix, start, limit, limit)
    return lines.cut_at(prefix, start, end, _next_word(text, end))


def rest(text: str, offset: int) -> str | None:
    """The text from ``offset`` on as a cut hands it out (a fence it starts inside
    opened again); None when ``offset`` is not inside the text."""
    if not 0 < offset < len(text):
        return None
    return _Lines(text).reopen(offset) + text[offset:]


class _Lines:
    """A text's lines and the fenced code blocks they are in."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts: list[int] = []
        """Each line's offset."""
        self.openers: list[str] = []
        """The opening line of the fence each line is inside: "" outside one (a fence's
        opening line is outside it, its closing line inside)."""
        self.closes: list[bool] = []
        """Whether the line closes a fence."""
        fence, opener, start = "", "", 0
        for line in text.split("\n"):
            self.starts.append(start)
            self.openers.append(opener)
            match = _FENCE.match(line)
            closing = bool(
                fence
                and match
                and match.group(1)[0] == fence[0]
                and len(match.group(1)) >= len(fence)
                and line.strip() == match.group(1)
            )
            self.closes.append(closing)
            if closing:
                fence, opener = "", ""
            elif not fence and match:
                fence, opener = match.group(1), line.strip()
            start += len(line) + 1

    def opener(self, offset: int) -> str:
        """The opening line of the fence ``offset`` is inside ("" outside one)."""
        return self.openers[bisect.bisect_right(self.starts, offset) - 1]

    def reopen(self, offset: int) -> str:
        """What a rest starting at ``offset`` opens with: its fence's opening line."""
        opener = self.opener(offset) if offset else ""
        return opener + "\n" if opener else ""

    def closer(self, offset: int) -> str:
        """What closes a head whose rest starts at ``offset`` ("" outside a fence)."""
        match = _FENCE.match(self.opener(offset))
        return "\n" + match.group(1) if match else ""

    def cut_at(self, prefix: str, start: int, head_end: int, rest_at: int) -> Cut:
        head = prefix + self.text[start:head_end] + self.closer(rest_at)
        return Cut(head=head, rest_at=rest_at)

    def boundaries(self, start: int, room: int) -> tuple[tuple[int, int], tuple[int, int]]:
        """The latest block boundary and the latest line boundary after ``start`` whose
        head from ``start`` fits in ``room``, each as (head end, rest offset); (start,
        start) for none. A rest starts at a line that is not blank, never at a fence's
        closing line."""
        text = self.text
        block = line = (start, start)
        first = bisect.bisect_right(self.starts, start)  # the line after the one of start
        begin = self.starts[first] if first < len(self.starts) else len(text)
        # Where the last line that is not blank ends, so far (the line start is in).
        head_end = start + len(text[start:begin].rstrip())
        blank_before, after_fence = head_end == start, self.closes[first - 1]
        for index in range(first, len(self.starts)):
            begin = self.starts[index]
            end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else len(text)
            content = text[begin:end]
            if not content.strip():
                blank_before = blank_before or not self.openers[index]
                continue
            if head_end > start and not self.closes[index]:
                if head_end - start + len(self.closer(begin)) > room:
                    break
                if not self.openers[index] and (blank_before or after_fence):
                    block = (head_end, begin)
                else:
                    line = (head_end, begin)
            head_end = begin + len(content.rstrip())
            blank_before, after_fence = False, self.closes[index]
        return block, line


def _last_sentence_end(text: str, lines: _Lines, start: int, room: int) -> int:
    """The end of the last sentence outside code whose head from ``start`` fits in
    ``room`` (``start``: none)."""
    last = start
    for match in _SENTENCE_END.finditer(text, start, start + room + 1):
        after = _next_word(text, match.end())
        # "e.g. the": a lower-case word after the stop goes on with the sentence.
        if after < len(text) and not text[after].islower() and not lines.opener(match.end()):
            last = match.end()
    return last


def _next_word(text: str, at: int) -> int:
    """The offset of the first character at or after ``at`` that is not a space."""
    while at < len(text) and text[at].isspace():
        at += 1
    return at
