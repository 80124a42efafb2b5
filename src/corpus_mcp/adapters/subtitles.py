"""WebVTT subtitles read as a transcript (pure: bytes in, paragraphs out).

ted2zim keeps a talk's transcript only as subtitle files (``videos/<id>/subs/subs_<lang>.vtt``,
one cue per line the speaker says). What a reader wants of them is the text: the cue
timings, ``NOTE``/``STYLE``/``REGION`` blocks and cue settings go; cue identifiers go; tags
(``<c.yellow>``, ``<v Speaker>``, ``<i>``, inline ``<00:00:01.500>`` timestamps) are
stripped, character references (``&amp;``) decoded and control characters dropped; and
consecutive cues are joined into paragraphs, broken where the speaker pauses or a long
paragraph ends a sentence.

A file that is not WebVTT (no ``WEBVTT`` signature, bytes that are not UTF-8) raises
:class:`SubtitleError`; a malformed cue inside a sound file is skipped, as players do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from html import unescape
from typing import Final

import msgspec

__all__ = ["Cue", "SubtitleError", "paragraphs", "read_cues", "transcript"]

#: A pause at least this long (seconds) between two cues starts a new paragraph.
PARAGRAPH_PAUSE_SECONDS: Final = 2.0
#: A paragraph at least this long (characters) ends at the next sentence end.
PARAGRAPH_CHARS: Final = 600

_SIGNATURE: Final = re.compile(r"WEBVTT(?:[ \t].*)?")
_TIMESTAMP: Final = r"(?:(\d+):)?([0-5]\d):([0-5]\d)\.(\d{3})"
_TIMING: Final = re.compile(rf"\s*{_TIMESTAMP}[ \t]+-->[ \t]+{_TIMESTAMP}(?:[ \t].*)?")
_BLOCK_BREAK: Final = re.compile(r"\n(?:[ \t]*\n)+")
# Blocks that are no cues: comments, style sheets, region definitions.
_NOT_CUES: Final = re.compile(r"(?:NOTE|STYLE|REGION)(?:[ \t].*)?")
_TAG: Final = re.compile(r"<[^>\n]*>")
# What XML refuses (the transcript becomes part of an HTML tree): control characters,
# noncharacters and lone surrogates, raw or from a character reference.
_NOT_TEXT: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\ud800-\udfff]")
_SENTENCE_END: Final = re.compile(r"[.!?…][\"'”’»)\]]*$")


class SubtitleError(ValueError):
    """The bytes are not a WebVTT file."""


class Cue(msgspec.Struct, frozen=True):
    """One cue: when it shows (seconds) and its text, tags stripped, on one line."""

    start: float
    end: float
    text: str


def read_cues(data: bytes) -> list[Cue]:
    """The cues of a WebVTT file in file order; those without text are left out."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SubtitleError(f"not UTF-8 text (byte {exc.start})") from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    blocks = _BLOCK_BREAK.split(text.strip("\n"))
    if not _SIGNATURE.fullmatch(blocks[0].split("\n", 1)[0]):
        raise SubtitleError("no WEBVTT signature on the first line")
    cues: list[Cue] = []
    for block in blocks[1:]:
        cues.extend(_cues(block.split("\n")))
    return cues


def _cues(lines: list[str]) -> Iterator[Cue]:
    """A block's cues: an optional identifier line, the timing line, the text lines. A
    line holding ``-->`` ends the text and starts another cue (WebVTT's parser does the
    same: a payload never holds ``-->``), so a block missing its blank lines still reads."""
    if _NOT_CUES.fullmatch(lines[0]):
        return
    timing_line = 0 if "-->" in lines[0] else 1
    while timing_line < len(lines):
        following = next(
            (n for n in range(timing_line + 1, len(lines)) if "-->" in lines[n]), len(lines)
        )
        timing = _TIMING.fullmatch(lines[timing_line])
        if timing is not None:
            start, end = _seconds(timing.groups()[:4]), _seconds(timing.groups()[4:])
            payload = lines[timing_line + 1 : following]
            text = " ".join(unescape(_TAG.sub("", line)) for line in payload)
            text = " ".join(_NOT_TEXT.sub("", text).split())
            if text:
                yield Cue(start, end, text)
        timing_line = following


def _seconds(parts: tuple[str | None, ...]) -> float:
    hours, minutes, seconds, millis = (int(part or 0) for part in parts)
    return hours * 3600 + minutes * 60 + seconds + millis / 1000


def paragraphs(cues: Iterable[Cue]) -> list[str]:
    """Consecutive cues joined into paragraphs: a new one after a pause of
    :data:`PARAGRAPH_PAUSE_SECONDS`, or once a paragraph of :data:`PARAGRAPH_CHARS` ends
    a sentence. A cue repeating the one before (rolling captions) is said once."""
    found: list[str] = []
    current: list[str] = []
    length = 0
    previous: Cue | None = None
    for cue in cues:
        if previous is not None and cue.text == previous.text:
            previous = cue
            continue
        paused = previous is not None and cue.start - previous.end >= PARAGRAPH_PAUSE_SECONDS
        full = length >= PARAGRAPH_CHARS and _SENTENCE_END.search(current[-1]) is not None
        if current and (paused or full):
            found.append(" ".join(current))
            current, length = [], 0
        current.append(cue.text)
        length += len(cue.text) + 1
        previous = cue
    if current:
        found.append(" ".join(current))
    return found


def transcript(data: bytes) -> list[str]:
    """A WebVTT file's text as paragraphs (:class:`SubtitleError` if it is not WebVTT)."""
    return paragraphs(read_cues(data))
