"""Which scraper made an archive, and from what that is known (pure; a leaf).

The ``Scraper`` metadata decides when it names a known scraper; another scraper's name
makes the archive "other HTML" (its Tags may name a family it does not have the layout
of). When it is absent or names a generic writer (zimwriterfs), the answer comes, in
this order, from the replay code every
warc2zim archive holds (a zimit crawl is read as the site it crawled, whatever that
site was, so it is never taken for the scraper of that site), the ``Tags`` (one family
among them, not two), a few entry paths each family writes (cheap look-ups through a
:class:`Probe`), and the ``Name`` of Wikimedia, DevDocs and Stack Exchange archives
(2015-2018 archives carry no ``Scraper``). Never from the file name: anyone may rename
a file. An archive nothing recognises is "other HTML", read by the generic adapter.

Each family has the adapter names it prefers, best first; :func:`adapter_for` takes the
first one registered and the generic ``html`` adapter otherwise, so a family gets its
own adapter the day one is registered, without touching this table.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Final, Literal, Protocol

import msgspec

Family = Literal[
    "mwoffliner",
    "devdocs2zim",
    "sotoki",
    "warc2zim",
    "gutenberg2zim",
    "fcc2zim",
    "mindtouch2zim",
    "ifixit2zim",
    "ted2zim",
    "html",
]

GENERIC_ADAPTER: Final = "html"
"""The adapter of every family without one of its own: any HTML archive."""

PREFERRED_ADAPTERS: Final[dict[Family, tuple[str, ...]]] = {
    "mwoffliner": ("mediawiki",),
    "devdocs2zim": ("devdocs",),
    "sotoki": ("stackexchange",),
    "gutenberg2zim": ("gutenberg",),
    "warc2zim": (),
    "fcc2zim": ("freecodecamp",),
    "mindtouch2zim": ("libretexts",),
    "ifixit2zim": ("ifixit",),
    "ted2zim": ("ted",),
    "html": (),
}

LABELS: Final[dict[Family, str]] = {
    "mwoffliner": "mwoffliner (MediaWiki)",
    "devdocs2zim": "devdocs2zim (DevDocs)",
    "sotoki": "sotoki (Stack Exchange)",
    "warc2zim": "zimit/warc2zim (a crawled website)",
    "gutenberg2zim": "gutenberg2zim (Project Gutenberg)",
    "fcc2zim": "fcc2zim (freeCodeCamp)",
    "mindtouch2zim": "mindtouch2zim (LibreTexts)",
    "ifixit2zim": "ifixit2zim (iFixit)",
    "ted2zim": "ted2zim (TED)",
    "html": "other HTML",
}
"""How a family reads in a manifest comment or a warning."""


class Recognition(msgspec.Struct, frozen=True):
    """An archive's family and what showed it (``"Scraper 'ted2zim 3.2.1'"``)."""

    family: Family
    evidence: str

    @property
    def label(self) -> str:
        return LABELS[self.family]


class Probe(Protocol):
    """Entry look-ups on one archive, by the paths it stores (``C`` namespace implied in
    new-scheme archives, the namespace included in old ones)."""

    def has_entry(self, path: str) -> bool:
        """Whether an entry is stored at ``path``."""
        ...

    def paths_from(self, prefix: str, limit: int) -> Sequence[str]:
        """Up to ``limit`` stored paths starting with ``prefix``, in path order."""
        ...


class _NoEntries:
    def has_entry(self, path: str) -> bool:
        return False

    def paths_from(self, prefix: str, limit: int) -> Sequence[str]:
        return ()


NO_ENTRIES: Final[Probe] = _NoEntries()
"""A probe of an archive with no entries (metadata alone decides)."""

# -- the Scraper metadata -----------------------------------------------------------------

_SCRAPERS: Final[tuple[tuple[re.Pattern[str], Family], ...]] = (
    (re.compile(r"^mwoffliner\b"), "mwoffliner"),
    (re.compile(r"^devdocs2zim\b"), "devdocs2zim"),
    (re.compile(r"^sotoki\b"), "sotoki"),
    # zimit appends its own version to warc2zim's ("warc2zim 2.1.3, zimit 2.1.8").
    (re.compile(r"^(?:warc2zim|zimit)\b|\bzimit\b"), "warc2zim"),
    (re.compile(r"^gutenberg2zim\b"), "gutenberg2zim"),
    (re.compile(r"^fcc2zim\b"), "fcc2zim"),
    # mindtouch2zim was libretexts2zim before it served other MindTouch sites.
    (re.compile(r"^(?:mindtouch2zim|libretexts2zim)\b"), "mindtouch2zim"),
    (re.compile(r"^ifixit2zim\b"), "ifixit2zim"),
    (re.compile(r"^ted2zim\b"), "ted2zim"),
)

_GENERIC_WRITERS: Final = re.compile(r"^(?:zimwriterfs|zimwriter|zim-tools|libzim|python-libzim)\b")
"""Tools that write any folder of HTML (old mwoffliner archives went through
zimwriterfs): their name says nothing of the family, so the rest is read."""

# -- the Tags -----------------------------------------------------------------------------

WIKIMEDIA_PROJECTS: Final = frozenset(
    {
        "wikipedia",
        "wiktionary",
        "wikibooks",
        "wikivoyage",
        "wikiquote",
        "wikisource",
        "wikinews",
        "wikiversity",
        "wikispecies",
        "wikimedia",
        "mdwiki",
    }
)
"""MediaWiki sites only mwoffliner archives: their names tell the family (wikiHow, a
MediaWiki site too, is scraped by wikihow2zim)."""

_TAGS: Final[dict[str, Family]] = {
    **dict.fromkeys(WIKIMEDIA_PROJECTS, "mwoffliner"),
    **{f"_category:{project}": "mwoffliner" for project in WIKIMEDIA_PROJECTS},
    "devdocs": "devdocs2zim",
    "_category:stack_exchange": "sotoki",
    "stack_exchange": "sotoki",
    "stackexchange": "sotoki",
    "gutenberg": "gutenberg2zim",
    "_category:gutenberg": "gutenberg2zim",
    "fcc": "fcc2zim",
    "freecodecamp": "fcc2zim",
    "_category:freecodecamp": "fcc2zim",
    "libretexts": "mindtouch2zim",
    "_category:libretexts": "mindtouch2zim",
    "ifixit": "ifixit2zim",
    "_category:ifixit": "ifixit2zim",
    "ted": "ted2zim",
    "_category:ted": "ted2zim",
}

# -- the entries each family writes ---------------------------------------------------------

PROBE_LIMIT: Final = 64
"""How many paths after a prefix a probe reads at most (a few binary searches)."""


class _Look(msgspec.Struct, frozen=True):
    """Entries at ``prefix`` matching ``pattern``; ``also``, when set, must exist too."""

    prefix: str
    pattern: re.Pattern[str]
    also: str = ""


_CONTENT: Final[tuple[tuple[Family, _Look], ...]] = (
    ("fcc2zim", _Look("content/curriculum/", re.compile(r"^content/curriculum/.+\.md$"))),
    (
        "mindtouch2zim",
        _Look(
            "content/page_content_",
            re.compile(r"^content/page_content_\d+\.json$"),
            also="content/shared.json",
        ),
    ),
    ("ifixit2zim", _Look("Guide/-/", re.compile(r"^Guide/-/\d+$"))),
    ("ted2zim", _Look("videos/", re.compile(r"^videos/[^/]+/subs/subs_[\w-]+\.vtt$"))),
    (
        "gutenberg2zim",
        _Look("covers/", re.compile(r"^covers/\d+_cover_image\.\w+$"), also="authors.js"),
    ),
    # mwoffliner's old-scheme resources (its newer archives all carry a Scraper).
    ("mwoffliner", _Look("-/j/js_modules/", re.compile(r"^-/j/js_modules/.+\.js$"))),
)

REPLAY_CODE: Final = "_zim_static/wombat.js"
"""What every warc2zim archive holds to replay its pages (whatever the crawled site)."""

# -- the Name -----------------------------------------------------------------------------

_STACK_EXCHANGE_SITES: Final = re.compile(
    r"^(?:[a-z]{2}\.)?(?:[\w-]+\.stackexchange\.com|stackoverflow\.com|superuser\.com|"
    r"serverfault\.com|askubuntu\.com|mathoverflow\.net|stackapps\.com)_"
)


def _from_name(name: str) -> Family | None:
    lowered = name.strip().lower().removeprefix("kiwix.")
    project = lowered.split("_", 1)[0]
    if project in WIKIMEDIA_PROJECTS:
        return "mwoffliner"
    if project in ("devdocs", "devdocs.io"):
        return "devdocs2zim"
    if _STACK_EXCHANGE_SITES.match(lowered):
        return "sotoki"
    return None


def _from_scraper(scraper: str) -> Family | None:
    lowered = scraper.strip().lower()
    return next((family for pattern, family in _SCRAPERS if pattern.search(lowered)), None)


def _from_tags(tags: Sequence[str]) -> tuple[Family, str] | None:
    """The one family the Tags name, with the tag that named it (two families: none)."""
    found: dict[Family, str] = {}
    for tag in tags:
        family = _TAGS.get(tag.strip().lower())
        if family is not None:
            found.setdefault(family, tag.strip())
    if len(found) != 1:
        return None
    [(family, tag)] = found.items()
    return family, tag


def _from_content(probe: Probe) -> tuple[Family, str] | None:
    for family, look in _CONTENT:
        if look.also and not probe.has_entry(look.also):
            continue
        hit = next(
            (p for p in probe.paths_from(look.prefix, PROBE_LIMIT) if look.pattern.match(p)),
            None,
        )
        if hit is not None:
            return family, f"entry {hit}" + (f" beside {look.also}" if look.also else "")
    return None


def recognise(
    *, scraper: str | None, tags: Sequence[str], name: str, probe: Probe = NO_ENTRIES
) -> Recognition:
    """The family of an archive with this metadata and these entries."""
    said = (scraper or "").strip()
    if said and (family := _from_scraper(said)) is not None:
        return Recognition(family, f"Scraper {said!r}")
    if probe.has_entry(REPLAY_CODE):
        return Recognition("warc2zim", f"entry {REPLAY_CODE}")
    if said and not _GENERIC_WRITERS.match(said.lower()):
        # Another scraper's archive (youtube2zim, wikihow2zim...): Tags and entries that
        # look like a family here would mislead (a TED channel's videos are tagged "ted").
        return Recognition("html", f"Scraper {said!r}, a scraper of no family of its own")
    if (tagged := _from_tags(tags)) is not None:
        return Recognition(tagged[0], f"Tags {tagged[1]!r}")
    if (content := _from_content(probe)) is not None:
        return Recognition(*content)
    if (named := _from_name(name)) is not None:
        return Recognition(named, f"Name {name.strip()!r}")
    scraper_said = f"Scraper {said!r}" if said else "no Scraper"
    name_said = f"Name {name.strip()!r}" if name.strip() else "no Name"
    return Recognition(
        "html", f"no family recognised from {scraper_said}, the Tags, {name_said} or the entries"
    )


def adapter_for(family: Family, registered: Collection[str]) -> str:
    """The first adapter ``family`` prefers that is ``registered``, else the generic one."""
    return next((a for a in PREFERRED_ADAPTERS[family] if a in registered), GENERIC_ADAPTER)
