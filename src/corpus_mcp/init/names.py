"""Readable, unique library names from what an archive says about itself (pure).

A library's name is the authority of every ref (``corpus://Python-Docs/library/re``) and
the ``library`` of every result, so it reads like the project, the way people write it:
Title-Case words joined by hyphens (``Wikipedia``, ``Python-Docs``, ``Math-SE``,
``Project-Gutenberg-Library``), brands spelled as their owners spell them (``MDWiki``,
``iFixit``, ``freeCodeCamp``, ``PostgreSQL``), versions as written (``3.11``). Hyphens,
because a name holds no space and the hyphen is what a host name joins words with (the
name stands where a URI's host does): it needs no escape in a ref or a Markdown link,
and unlike ``_`` it is no emphasis marker in Markdown. Names are unique ignoring case,
as refs match them.

Kiwix names archives ``{project}_{language}_{selection}`` (``wikipedia_en_all``,
``devdocs_en_python``, ``math.stackexchange.com_en_all``; old files start with
``kiwix.``) and puts the flavour (``maxi``, ``nopic``...) and the date in the file name.
A name is the project's (``Wikipedia``, ``StackOverflow``), a DevDocs archive's subject
(``Python-Docs``), a Stack Exchange site's (``Math-SE``), and carries a suffix only when
two archives would otherwise share it: the language, then the selection, then the
flavour, then the snapshot, as few of them as tell the archive apart, spelled as the
file name spells them (``Wikipedia-fr``, ``Wikipedia-en-medicine``,
``Wikipedia-2025-11``): they are Kiwix's codes for the archive, not words.

Archives of the other families are named by their ``Title`` where it reads as a name
(``Python 3.11 documentation`` becomes ``Python-3.11-Documentation``, ``LibreTexts
Chemistry`` ``LibreTexts-Chemistry``), since their ``Name`` is often a domain; else by
the project of their ``Name`` with its brand spelled right (``iFixit``, ``TED``), a
domain by its own label (``docs.python.org``: ``Python``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from corpus_mcp.families import Family
from corpus_mcp.snapshots import without_snapshot
from corpus_mcp.zim import ArchiveInfo

MAX_NAME_CHARS = 64
"""The manifest's limit (config.LIBRARY_NAME_PATTERN)."""

_LANGUAGE = re.compile(r"^(?:[a-z]{2,3}|[a-z]{2,3}-[a-z]{2,8})$")
_FLAVOURS = ("maxi", "mini", "nopic", "novid", "nodet")
_INVALID = re.compile(r"[^A-Za-z0-9.]+")
"""What a name's words cannot hold (``-`` joins them)."""

#: Projects whose readable spelling is not just a capital first letter (Kiwix projects,
#: and subjects of DevDocs archives).
KNOWN_PROJECTS = {
    "mdwiki": "MDWiki",
    "devdocs": "DevDocs",
    "devdocs.io": "DevDocs",
    "stackoverflow.com": "StackOverflow",
    "superuser.com": "SuperUser",
    "serverfault.com": "ServerFault",
    "askubuntu.com": "AskUbuntu",
    "mathoverflow.net": "MathOverflow",
    "stackapps.com": "StackApps",
    "ted": "TED",
    "ifixit": "iFixit",
    "freecodecamp": "freeCodeCamp",
    "fcc": "freeCodeCamp",
    "libretexts": "LibreTexts",
    "wikihow": "wikiHow",
    "gutenberg": "Gutenberg",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "coffeescript": "CoffeeScript",
    "postgresql": "PostgreSQL",
    "mysql": "MySQL",
    "mariadb": "MariaDB",
    "sqlite": "SQLite",
    "numpy": "NumPy",
    "jquery": "jQuery",
    "php": "PHP",
    "css": "CSS",
    "html": "HTML",
}
#: Families whose Name conventions the names above are built on: their Title is not used
#: (it would rename libraries whose refs agents already hold).
NAMED_BY_NAME: frozenset[Family] = frozenset({"mwoffliner", "devdocs2zim", "sotoki"})
MAX_TITLE_WORDS = 5
MAX_TITLE_CHARS = MAX_NAME_CHARS // 2
_TITLE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.]*(?: [A-Za-z0-9][A-Za-z0-9.-]*)*$")
"""Words of letters, digits and dots (``3.11``): no ``-`` or ``:`` between them, no
underscores (an identifier, not a title), no brackets."""
_CONNECTIVES = frozenset({"in", "for", "by", "from", "on", "de", "en", "auf", "sur"})
"""A title with one of these is a phrase (``iFixit in English``), not a name."""
_SECOND_LEVEL = frozenset({"co", "com", "org", "net", "ac", "gov", "edu"})
_DEVDOCS = ("devdocs", "devdocs.io")
_STACK_EXCHANGE = ".stackexchange.com"


class Identity(msgspec.Struct, frozen=True, kw_only=True):
    """What tells an archive apart from others, parsed from its Name and file name."""

    key: str
    """The Name without its ``kiwix.`` prefix (or the file name without its date)."""
    project: str
    language: str
    selection: str
    flavour: str
    snapshot: str
    title: str = ""
    """The archive's Title as a name, where it reads as one (else empty)."""

    @property
    def lineage(self) -> str:
        """Archives of one lineage are snapshots or flavours of the same library (Kiwix
        Names carry no flavour)."""
        return self.key.lower()

    @property
    def richness(self) -> int:
        """How much text a flavour keeps, for choosing among flavours of one snapshot:
        the server reads text only, so pictures do not count."""
        ranks = {"maxi": 5, "nopic": 4, "novid": 4, "": 3, "nodet": 2, "mini": 1}
        return ranks.get(self.flavour.lower(), 3)


def sanitise(text: str) -> str:
    """``text``'s words (runs of ASCII letters, digits and dots, accents taken off)
    joined by ``-``."""
    return _INVALID.sub("-", _ascii(text)).strip("-.")


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _spelt(word: str) -> str:
    """A word of a name as people write it: a known brand's spelling, a capital first
    letter for a word in lower case, any other word (``freeCodeCamp``, ``3.11``) as is."""
    if word != word.lower():
        return word
    return KNOWN_PROJECTS.get(word) or _capitalised(word)


def title_cased(name: str) -> str:
    """``name``'s words, each :func:`_spelt`, joined by ``-``."""
    return "-".join(_spelt(word) for word in sanitise(name).split("-") if word)


def _ascii(text: str) -> str:
    """``text`` with its accents taken off (``Wikipédia``: ``Wikipedia``)."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def title_name(info: ArchiveInfo) -> str:
    """``info``'s Title as a name (words joined by ``-``), or "" where it does not read
    as one: absent (the reader gave the file name), the Name again, a phrase, too long,
    or with characters a name cannot hold."""
    title = " ".join(_ascii(info.title).split())
    if info.family in NAMED_BY_NAME or not title:
        return ""
    if title.lower() in (Path(info.file).stem.lower(), info.name.strip().lower()):
        return ""
    words = title.split(" ")
    if len(words) > MAX_TITLE_WORDS or len(title) > MAX_TITLE_CHARS:
        return ""
    if not _TITLE.match(title) or any(word.lower() in _CONNECTIVES for word in words):
        return ""
    return "-".join(words)


def identity_of(info: ArchiveInfo) -> Identity:
    """The parts of ``info``'s Name (falling back to its file name) that names are built from."""
    stem = without_snapshot(Path(info.file).stem)
    key = info.name.strip()
    if key.lower().startswith("kiwix."):
        key = key[len("kiwix.") :]
    key = key or stem
    project, *rest = key.split("_")
    language = ""
    if rest and _LANGUAGE.match(rest[0].lower()):
        language = rest.pop(0)
    # ru.stackoverflow.com: a language site of a known project.
    prefixed = re.match(r"^([a-z]{2})\.(.+)$", project.lower())
    if prefixed and prefixed[2] in KNOWN_PROJECTS:
        language, project = prefixed[1], prefixed[2]
    flavour = (info.flavour or "").strip("_ ")
    if not flavour and stem.lower().startswith(key.lower() + "_"):
        flavour = stem[len(key) + 1 :]
    if not flavour:
        flavour = next((tag for tag in info.tags if tag.lower() in _FLAVOURS), "")
    return Identity(
        key=key,
        project=project,
        language=language or (info.language or ""),
        selection="_".join(rest),
        flavour=flavour,
        snapshot=info.snapshot or "",
        title=title_name(info),
    )


def _domain_label(project: str) -> str:
    """A project that is a domain by its own label (``docs.python.org``: ``Python``,
    ``vikidia.org``: ``Vikidia``, ``chem.libretexts.org``: ``LibreTexts``); any other
    project capitalised."""
    labels = [label for label in project.split(".") if label]
    if len(labels) > 1:
        labels.pop()  # the top-level domain
        if len(labels) > 1 and labels[-1].lower() in _SECOND_LEVEL:
            labels.pop()  # example.co.uk
    label = labels[-1] if labels else project
    return KNOWN_PROJECTS.get(label.lower()) or label


def readable_base(identity: Identity) -> str:
    """The name an archive gets when no other archive claims it."""
    project = identity.project.lower()
    if identity.title:
        base = identity.title
    elif project in _DEVDOCS:
        base = f"{identity.selection}-Docs" if identity.selection else "DevDocs"
    elif project.endswith(_STACK_EXCHANGE):
        base = project.removesuffix(_STACK_EXCHANGE).replace(".", "-") + "-SE"
    elif project in KNOWN_PROJECTS:
        base = KNOWN_PROJECTS[project]
    else:
        base = _domain_label(identity.project)
    return title_cased(base)[: MAX_NAME_CHARS // 2].strip("-.") or "Library"


Dimension = Callable[[Identity], str]
DIMENSIONS: tuple[Dimension, ...] = (
    lambda identity: identity.language,
    # The whole project ("all") needs no suffix; DevDocs' selection is in the base.
    lambda identity: (
        ""
        if identity.project.lower() in _DEVDOCS or identity.selection.lower() == "all"
        else identity.selection
    ),
    lambda identity: identity.flavour,
    lambda identity: identity.snapshot,
)


def _distinguishing_suffix(
    index: int, group: Sequence[int], identities: Sequence[Identity]
) -> list[str]:
    """The fewest dimensions, in order, that set ``identities[index]`` apart in its group."""
    mine = identities[index]
    rivals = [identities[j] for j in group if j != index]
    chosen: list[Dimension] = []
    for dimension in DIMENSIONS:
        if all(dimension(rival) == dimension(mine) for rival in rivals):
            continue  # the same everywhere in the group: tells nothing apart
        chosen.append(dimension)
        rivals = [r for r in rivals if all(d(r) == d(mine) for d in chosen)]
        if not rivals:
            break
    return [value for dimension in chosen if (value := dimension(mine))]


def fit_name(base: str, suffix: str) -> str:
    """``base`` + ``suffix`` cut to the name limit, keeping the suffix whole."""
    return base[: MAX_NAME_CHARS - len(suffix)].rstrip("-.") + suffix


def unique_names(identities: Sequence[Identity]) -> list[str]:
    """One valid name per identity, unique ignoring case, readable where possible."""
    bases = [readable_base(identity) for identity in identities]
    groups: dict[str, list[int]] = defaultdict(list)
    for index, base in enumerate(bases):
        groups[base.lower()].append(index)
    names = list(bases)
    for group in groups.values():
        if len(group) == 1:
            continue
        for index in group:
            parts = [sanitise(part) for part in _distinguishing_suffix(index, group, identities)]
            suffix = "".join(f"-{part}" for part in parts if part)
            names[index] = fit_name(bases[index], suffix)
    return deduplicate(names)


def deduplicate(names: Sequence[str]) -> list[str]:
    """``names`` with ``-2``, ``-3``... added where one is taken already (ignoring case)."""
    taken: set[str] = set()
    unique: list[str] = []
    for name in names:
        candidate, counter = name, 1
        while candidate.lower() in taken:
            counter += 1
            candidate = fit_name(name, f"-{counter}")
        taken.add(candidate.lower())
        unique.append(candidate)
    return unique
