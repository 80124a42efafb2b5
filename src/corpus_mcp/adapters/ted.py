"""ted2zim archives (TED talks): a talk is its speaker, title, description and transcript.

What ted2zim 3.x writes (``../shared/zims/families/README.md``):

- a talk page at the archive's root, slugged from its title (``why-bees-dance``): the
  speaker, then the title and the description once per language (``p.title.lang-default``
  and ``p.title.lang-en`` saying the same), the video with one ``<track>`` per subtitle
  language, the date and a speaker box (profession, a line about them);
- the transcript only as those subtitle files, ``videos/<id>/subs/subs_<lang>.vtt``, which
  the archive's full-text index does not hold; the video, its poster and the speaker's
  picture beside them;
- ``index``, the list of talks a script fills from ``assets/data_<lang>.js``.

So a talk's document is made of its page and its subtitle files, read with it as its
companions (:meth:`TedAdapter.companions`, :mod:`corpus_mcp.companions`): the lead says
who spoke and when, the description (once) and who the speaker is; the transcript in the
talk's own language is the section ``transcript``, each other language's its own
(``transcript-fr``, "Transcript (French)"), paragraphs joined from the cues
(:mod:`corpus_mcp.adapters.subtitles`). A missing or unreadable subtitle file costs its
section, never the talk. A page not made by ted2zim's talk template is read as any HTML
page (:class:`~corpus_mcp.adapters.html.HtmlAdapter`).

The archive does not record a talk's address on ted.com (its page path is ted2zim's own
slug, not TED's ``speaker_title`` one), so a talk has no source URL.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from html import escape, unescape
from typing import Final
from urllib.parse import unquote

import msgspec
from lxml.html import HtmlElement

from corpus_mcp.adapters.html import HtmlAdapter
from corpus_mcp.adapters.outline import build_sections, elements, flatten
from corpus_mcp.adapters.subtitles import SubtitleError, transcript
from corpus_mcp.cleaning import Rendering, has_class, parse_html, visible_text, xml_safe_retry
from corpus_mcp.document import Document

__all__ = ["TedAdapter", "Track", "tracks"]

_INDEX: Final = "index"
_TRACK_TAG: Final = re.compile(rb"<track\b[^>]*>", re.IGNORECASE)
_ATTRIBUTE: Final = re.compile(
    rb"""(?<![\w-])(src|kind|srclang|label)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""",
    re.IGNORECASE,
)
# Tracks that hold what is said (a ``chapters`` or ``metadata`` track does not).
_SPOKEN_KINDS: Final = frozenset({"", "subtitles", "captions"})
_LANGUAGE_JUNK: Final = re.compile(r"[^a-z0-9-]+")
_MAIN_TRANSCRIPT: Final = "transcript"


class Track(msgspec.Struct, frozen=True):
    """One subtitle track of a talk's video: its entry, language code and label."""

    path: str
    language: str
    label: str


class TedAdapter(HtmlAdapter):
    """The ``ted`` family: talk pages with their transcripts; ``index`` is navigation."""

    name = "ted"
    version = 2  # 2: a timing line inside a block starts the next cue
    main_page_is_navigation = True
    """``index`` is the list of talks, filled by a script."""
    redirect_stubs = False
    """ted2zim writes no HTML redirect stubs."""
    site_samples = False
    """ted2zim records no talk's address on ted.com (see the module): no link leads
    into a TED archive."""

    def is_content(self, path: str, mimetype: str) -> bool:
        """Talk pages, at the archive's root; not ``index``, the videos, subtitles,
        pictures or scripts (none of which is HTML at the root)."""
        if mimetype.split(";", 1)[0].strip().lower() != "text/html":
            return False
        return "/" not in path and path != _INDEX

    def serves(self, path: str) -> bool:
        return self.is_content(path, "text/html")

    def companions(self, path: str, content: bytes) -> tuple[str, ...]:
        """The talk's subtitle files its page's ``<track>`` elements name."""
        return tuple(track.path for track in tracks(path, content))

    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        """The talk without its transcript (no subtitle file at hand)."""
        return self._talk(path, title, html, library, view=view, companions={})

    def parse_with_companions(
        self,
        path: str,
        title: str,
        html: bytes,
        library: str,
        companions: Mapping[str, bytes],
        *,
        view: bool = False,
    ) -> Document:
        """The talk with a transcript section per subtitle file in ``companions``."""
        return self._talk(path, title, html, library, view=view, companions=companions)

    @xml_safe_retry
    def _talk(
        self,
        path: str,
        title: str,
        html: bytes,
        library: str,
        *,
        view: bool,
        companions: Mapping[str, bytes],
    ) -> Document:
        root = parse_html(html)
        titles = _texts(root, "p", "title")
        if not titles:  # not ted2zim's talk template
            return super().parse(path, title, html, library, view=view)
        talk_title = titles[0]
        speaker = _text_of(root, ".//*[@id='speaker']")
        transcripts = _transcripts(root, path, html, companions)
        plain = _talk_html(root, speaker, titles, transcripts).encode()
        page = parse_html(plain)
        rendering = Rendering(view=view)
        rendering.prepare(page, plain)
        body = page.find("body")
        blocks = list(flatten(body if body is not None else page))
        sections = build_sections(blocks, talk_title, rendering)
        return Document(
            path=path,
            title=f"{speaker}: {talk_title}" if speaker else talk_title,
            kind="article",
            sections=sections,
            # Ranking weighs the heading as a title: the talk's own, without its speaker.
            metadata={"heading": talk_title},
            view=view,
        )


def tracks(path: str, html: bytes) -> list[Track]:
    """The spoken-word subtitle tracks of the talk page at ``path``, in page order: each
    ``<track src>`` made an archive path (relative to the page; off-archive URLs and
    paths above the archive's root left out), once."""
    found: list[Track] = []
    seen: set[str] = set()
    for tag in _TRACK_TAG.finditer(html):
        attributes = {
            name.decode("ascii").lower(): _attribute(values)
            for name, *values in _ATTRIBUTE.findall(tag.group())
        }
        if attributes.get("kind", "").strip().lower() not in _SPOKEN_KINDS:
            continue
        entry = _archive_path(path, attributes.get("src", ""))
        if entry is None or entry in seen:
            continue
        seen.add(entry)
        language = _LANGUAGE_JUNK.sub("-", attributes.get("srclang", "").lower()).strip("-")
        found.append(Track(entry, language, " ".join(attributes.get("label", "").split())))
    return found


def _attribute(values: list[bytes]) -> str:
    """An attribute's value, its character references (``&amp;``) decoded."""
    return unescape(b"".join(values).decode("utf-8", "replace"))


def _archive_path(page: str, src: str) -> str | None:
    """The entry a relative ``src`` names from ``page``; None for a URL off the archive."""
    src = src.strip().split("#", 1)[0]
    if not src or src.startswith(("/", "\\")) or re.match(r"[a-zA-Z][\w+.-]*:", src):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page), unquote(src)))
    if joined.startswith("../") or joined in {".", ".."}:
        return None
    return joined


def _transcripts(
    root: HtmlElement, path: str, html: bytes, companions: Mapping[str, bytes]
) -> list[tuple[str, str, list[str]]]:
    """``(section id, title, paragraphs)`` of each transcript the subtitle files give:
    the talk's own language first (``transcript``), then each other one."""
    wrapper = root.xpath(".//*[@id='video-wrapper']/@data-audio-lang")
    spoken = str(wrapper[0]).strip().lower() if wrapper else ""
    read: list[tuple[Track, list[str]]] = []
    for track in tracks(path, html):
        data = companions.get(track.path)
        if data is None:
            continue
        try:
            paragraphs = transcript(data)
        except SubtitleError:  # a corrupt file costs its section, not the talk
            continue
        if paragraphs:
            read.append((track, paragraphs))
    main = next((i for i, (track, _) in enumerate(read) if spoken and track.language == spoken), 0)
    out: list[tuple[str, str, list[str]]] = []
    taken: set[str] = set()
    for i, (track, paragraphs) in enumerate(read):
        if i == main:
            section_id, title = _MAIN_TRANSCRIPT, "Transcript"
        else:
            section_id = f"{_MAIN_TRANSCRIPT}-{track.language or i}"
            title = f"Transcript ({_language_name(track)})"
        if section_id in taken:
            continue
        taken.add(section_id)
        out.append((section_id, title, paragraphs))
    out.sort(key=lambda found: found[0] != _MAIN_TRANSCRIPT)
    return out


def _language_name(track: Track) -> str:
    """ted2zim labels a track ``"français - French"``: its English name, else the label
    or the code."""
    return track.label.rpartition(" - ")[2].strip() or track.language or "other language"


def _talk_html(
    root: HtmlElement,
    speaker: str,
    titles: list[str],
    transcripts: list[tuple[str, str, list[str]]],
) -> str:
    """The talk as one plain page: who and when, the titles in other languages and the
    description once each, the speaker box, then the transcripts."""
    date = _text_of(root, ".//*[@id='date']")
    byline = " · ".join(part for part in (speaker, date) if part)
    parts = [f"<p>{escape(byline)}</p>"] if byline else []
    parts += [f"<p>{escape(other)}</p>" for other in titles[1:]]
    parts += [f"<p>{escape(text)}</p>" for text in _texts(root, "p", "description")]
    about = [
        _text_of(root, ".//*[@id='speaker_info_profession']"),
        _text_of(root, ".//*[@id='speaker_desc']"),
    ]
    about_text = " ".join(part.rstrip(".") + "." for part in about if part)
    if about_text:
        parts.append(f"<p>About the speaker: {escape(about_text)}</p>")
    for section_id, title, paragraphs in transcripts:
        parts.append(f'<h2 id="{escape(section_id)}">{escape(title)}</h2>')
        parts += [f"<p>{escape(paragraph)}</p>" for paragraph in paragraphs]
    return "<html><body>" + "".join(parts) + "</body></html>"


def _texts(root: HtmlElement, tag: str, class_name: str) -> list[str]:
    """The distinct texts of the ``tag.class_name`` elements, in page order (ted2zim
    writes a talk's title and description once per language, mostly the same)."""
    found: list[str] = []
    for element in root.iter(tag):
        if isinstance(element, HtmlElement) and has_class(element, class_name):
            text = visible_text(element)
            if text and text not in found:
                found.append(text)
    return found


def _text_of(root: HtmlElement, xpath: str) -> str:
    found = elements(root, xpath)
    return visible_text(found[0]) if found else ""
