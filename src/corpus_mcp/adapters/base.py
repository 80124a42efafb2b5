"""What every family adapter provides to the corpus manager.

Adapters are pure: bytes and paths in, a :class:`~corpus_mcp.document.Document` or a
decision out. They never touch libzim or trio; the corpus manager reads entries through
the ZIM service and hands the bytes over.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Protocol

import msgspec

from corpus_mcp.addresses import Mount, mount_of, quick_host
from corpus_mcp.document import Document


class Landing(msgspec.Struct, frozen=True):
    """Where a non-libzim redirect (an HTML stub) points: a path and maybe a section."""

    path: str
    section: str | None = None


class PageList(msgspec.Struct, frozen=True, gc=False):
    """What an archive's own list of its pages says (mindtouch2zim's
    ``content/shared.json``), read once per archive: for a family whose pages link to
    each other by a name that is no entry's path (the reader's route), where each such
    link leads, and where each page is on the web."""

    paths: dict[str, str] = msgspec.field(default_factory=dict)
    """A link's path, as :mod:`corpus_mcp.adapters.links` decodes it -> the path of the
    document it names."""
    urls: dict[str, str] = msgspec.field(default_factory=dict)
    """A document's path -> its page on the web (to cite; never fetched)."""
    site: str = ""
    """The site's address (``https://chem.libretexts.org``) whose paths the listed
    routes are: a link to ``site/<route>`` leads to the route's document."""


class Site(msgspec.Struct, frozen=True, gc=False):
    """Where an archive's pages are on the web, read once per archive with its other
    tables (:func:`corpus_mcp.gather.load_site`): a few address prefixes, never a table
    of every page (English Wikipedia is one mount). A link to an address under a mount
    leads to the page the archive stores there (:mod:`corpus_mcp.webmap`)."""

    mounts: tuple[Mount, ...] = ()
    title: str = ""
    """The archive's title ("Python 3.11 documentation"): what a link's text calls the
    version the corpus holds when the link names another."""


class SiteFacts(msgspec.Struct, frozen=True, kw_only=True):
    """What an archive says about where its pages come from, as the corpus manager reads
    it once per archive (:func:`corpus_mcp.gather.load_site`)."""

    name: str
    """``Name`` metadata (sotoki and ifixit2zim name the site in it)."""
    title: str
    source: str | None = None
    """``Source`` metadata (mwoffliner 1.15+: the wiki's host, ``en.wikipedia.org``)."""
    sources: tuple[tuple[str, str], ...] = ()
    """A page or two as ``(path, source URL)``, read when the adapter asks for samples
    (:attr:`Adapter.site_samples`): the main page first, then pages from the middle of
    the archive."""
    pages: PageList = msgspec.field(default_factory=PageList)
    """The archive's page list (:attr:`Adapter.page_list`), when it has one."""


def learnt_site(facts: SiteFacts) -> Site:
    """The mounts the sample pages' source URLs show (:func:`corpus_mcp.addresses.mount_of`),
    each once."""
    mounts = [mount for path, url in facts.sources for mount in mount_of(path, url)]
    return Site(mounts=tuple(dict.fromkeys(mounts)), title=facts.title)


def listed_site(facts: SiteFacts) -> Site:
    """The site an archive's page list names (its routes are that site's paths)."""
    host = quick_host(facts.pages.site) if facts.pages.site else None
    if not host:
        return Site(title=facts.title)
    return Site(mounts=(Mount(f"{host}/"),), title=facts.title)


def folder_variants(rest: str) -> tuple[str, ...]:
    """The paths a site's address remainder may be stored under: itself, without a
    page suffix (DevDocs' ``library/shutil`` for ``library/shutil.html``), a folder's
    index page (``tutorial/`` -> ``tutorial/index``, ``tutorial/index.html``), a page
    address without its folder slash. ``""`` (a mount's own address) stays: a crawl
    stores its root page at the mount's path itself."""
    if not rest or rest.endswith("/"):
        return tuple(dict.fromkeys((f"{rest}index", f"{rest}index.html", rest, rest.rstrip("/"))))
    for suffix in (".html", ".htm"):
        if rest.endswith(suffix):
            return (rest[: -len(suffix)], rest)
    return (rest, f"{rest}/index", f"{rest}.html", f"{rest}/")


def symbol_key(name: str) -> str:
    """How a symbol is looked up: case-folded, spaces collapsed, a trailing ``()`` dropped
    (an agent asking for ``super()`` means the ``super`` entry)."""
    key = " ".join(name.split()).casefold()
    return key[:-2].rstrip() if key.endswith("()") else key


class Adapter(Protocol):
    name: str
    version: int
    """What :meth:`parse` makes of the same bytes, numbered: raised whenever it changes
    (sections cut differently, other text kept), so that a section index built with the
    old cut is rebuilt rather than served (:mod:`corpus_mcp.sections`)."""
    main_page_is_navigation: bool
    """The archive's main page is a listing (mwoffliner list page, sotoki "questions"),
    never a search result."""

    def is_content(self, path: str, mimetype: str) -> bool:
        """Whether an entry can be a search result (no assets, listings, main pages).

        Cheap: called for every search candidate, before any content is read.
        """
        ...

    redirect_stubs: bool
    """The family writes HTML redirect stubs, so a small page may have to be read to
    know where it lands (mwoffliner); others' title-index hits need no reading."""

    def stub_landing(self, path: str, html: bytes) -> Landing | None:
        """For an HTML redirect stub (mwoffliner fragment redirects), where it lands."""
        ...

    def section_for_path(self, requested_path: str) -> str | None:
        """The section a requested path means once libzim redirected it
        (sotoki ``a/<id>`` -> ``answer-<id>``); None for most paths."""
        ...

    def result_for(self, path: str) -> str:
        """The document a search hit on ``path`` offers: ``path`` itself, unless the page
        only introduces another one that holds all it says (gutenberg2zim's cover page,
        its book). Fetch still reads ``path`` itself."""
        ...

    stubs_indexed_with_content: bool
    """A page offered as another (:meth:`result_for`) carries that other's words in the
    archive's full-text index (mindtouch2zim gives each stub its page's text through
    IndexData), so its index numbers score the document it offers; otherwise they say
    nothing of it (a cover page, a redirect stub) and the document is read instead."""

    def link_spellings(self, path: str) -> tuple[str, ...]:
        """Other paths a link to ``path`` may mean when the archive stores no entry at
        ``path`` (a scraper that writes links in one spelling and stores pages in
        another: ifixit2zim's ``Device/Sony_WH-1000XM3`` for ``Device/Sony WH-1000XM3``),
        best first; fetch links the first one stored. Pure: no archive here."""

    def title_entry(self, path: str) -> str | None:
        """The entry whose title is the title of the document at ``path`` when that
        document's own entry is untitled (fcc2zim's and mindtouch2zim's content files,
        titled by their path, behind front-article stubs carrying the page's title); None
        for most paths. The corpus manager reads that title wherever it reads ``path``'s
        (:func:`corpus_mcp.gather.entry_title`)."""
        ...

    symbol_index: str | None
    """Path of an entry that maps API symbols to pages and anchors (devdocs2zim's
    ``navbar.json``), or None."""

    def parse_symbols(self, data: bytes) -> list[tuple[str, Landing]]:
        """``(case-folded symbol name, where it is documented)`` for every entry of
        ``symbol_index``, in its order (a name may repeat)."""
        ...

    page_list: str | None
    """Path of an entry listing the archive's pages by the names its links use, or None
    (the other families link to paths the archive stores)."""

    def parse_page_list(self, data: bytes) -> PageList:
        """What the ``page_list`` entry says; an empty list for data it cannot read (the
        links then stay text, the pages are served all the same)."""
        ...

    def serves(self, path: str) -> bool:
        """Whether a link to ``path`` leads to a document ``fetch`` returns: a content
        page, or a redirect to one (sotoki's ``a/<id>``). Decides which links in a
        document become refs (see :mod:`corpus_mcp.adapters.links`)."""
        ...

    def source_url(self, document: Document, archive_name: str) -> str | None:
        """Where the page comes from on the web, as the archive records it (``Name`` is
        the archive's metadata), so an agent can cite it; never fetched."""
        ...

    site_samples: bool
    """Whether :meth:`web_site` needs a page or two's source URLs (read and parsed once
    per archive): the families whose site no metadata names."""

    def web_site(self, facts: SiteFacts) -> Site:
        """Where this archive's pages are on the web (the mounts its source URLs show,
        its metadata, its page list); an empty :class:`Site` when it cannot say."""
        ...

    def web_paths(self, rest: str) -> tuple[str, ...]:
        """The paths the page at a mount's address + ``rest`` (percent-decoded) may be
        stored under, best first (the archive says which it holds). Pure and cheap:
        called for every web link to one of the corpus's sites."""
        ...

    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        """The document for a content entry; ``title`` is the entry's ZIM title and
        ``library`` the name its links' refs carry. ``view``: read for search only (each
        section's passages, no Markdown; see :attr:`Document.view`)."""
        ...

    def companions(self, path: str, content: bytes) -> tuple[str, ...]:
        """Other entries the document at ``path`` is made of, as archive paths (a TED
        talk's subtitle files, named by its page's ``<track>`` elements). Cheap (the bytes
        are scanned, not parsed): the corpus manager reads those the archive has with the
        page, for fetch, search and the section index alike, and hands their bytes to
        :meth:`parse_with_companions`."""
        ...

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
        """:meth:`parse`, given the bytes of the page's companions the archive has (one
        it lacks is absent from ``companions``; one it cannot read must not fail the
        page). What the corpus manager calls."""
        ...


class AdapterDefaults(ABC):
    """What most families do: no HTML stubs, no path-implied sections, no symbol index,
    no page list, no companion entries."""

    symbol_index: str | None = None
    page_list: str | None = None
    redirect_stubs: bool = False
    stubs_indexed_with_content: bool = False
    site_samples: bool = True

    def stub_landing(self, path: str, html: bytes) -> Landing | None:
        return None

    @abstractmethod
    def is_content(self, path: str, mimetype: str) -> bool:
        """See :meth:`Adapter.is_content` (every family says it)."""

    def serves(self, path: str) -> bool:
        """Links lead to documents wherever search finds them (an HTML entry)."""
        return self.is_content(path, "text/html")

    def section_for_path(self, requested_path: str) -> str | None:
        return None

    def result_for(self, path: str) -> str:
        return path

    def link_spellings(self, path: str) -> tuple[str, ...]:
        return ()

    def title_entry(self, path: str) -> str | None:
        return None

    def source_url(self, document: Document, archive_name: str) -> str | None:
        """What the page itself says (DevDocs' attribution link, a canonical link)."""
        return document.metadata.get("source_url") or None

    def web_site(self, facts: SiteFacts) -> Site:
        """What the sample pages' source URLs show (a DevDocs attribution link, a
        crawl's recorded URL, a canonical link)."""
        return learnt_site(facts)

    def web_paths(self, rest: str) -> tuple[str, ...]:
        """The address's remainder as it is, without ``.html``, or as a folder's index."""
        return folder_variants(rest)

    def parse_symbols(self, data: bytes) -> list[tuple[str, Landing]]:
        return []

    def parse_page_list(self, data: bytes) -> PageList:
        return PageList()

    @abstractmethod
    def parse(
        self, path: str, title: str, html: bytes, library: str, *, view: bool = False
    ) -> Document:
        """See :meth:`Adapter.parse` (every family says it)."""

    def companions(self, path: str, content: bytes) -> tuple[str, ...]:
        """A page is one entry."""
        return ()

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
        """The page alone (it has no companions)."""
        return self.parse(path, title, html, library, view=view)
