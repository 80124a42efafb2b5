"""Per-archive work that runs inside one worker thread: landing on entries, collecting hits.

Everything here is synchronous and talks to a :class:`~corpus_mcp.zim.ZimReader` plus a
pure adapter. The corpus manager runs each function as a single
``ArchiveService.run`` call, so one search costs one thread hop per library instead of
one per index call, and the per-archive lock is taken once. ``checkpoint`` is called
between index calls so that a worker whose caller timed out stops early.

Candidates come from two engines, whichever the archive allows:

- its Xapian indexes read directly (:mod:`corpus_mcp.zim.index`): one BM25 query in
  which every word is optional, with each hit's word frequencies and length, and the
  corpus statistics of the query's words; one title-index query over the same words;
- libzim's own search otherwise: ANDed words, so shorter and shorter forms of the query
  (:func:`corpus_mcp.ranking.relaxations`, least frequent words kept) while too few
  documents match; title suggestions for the query and for titles it may spell out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from corpus_mcp import ranking
from corpus_mcp.adapters import Adapter, PageList, Site, SiteFacts
from corpus_mcp.sections import SectionIndex
from corpus_mcp.symbols import SymbolTable, build_table
from corpus_mcp.zim import RedirectError, ZimError, ZimReader
from corpus_mcp.zim.index import TitleHit

#: HTML items at most this large are checked for being redirect stubs
#: (mwoffliner's html_redirect template is a few hundred bytes).
STUB_MAX_BYTES = 2048
#: Full-text hits with fewer words than this may be redirect stubs and are landed
#: through the archive; longer ones are documents as they stand.
STUB_MAX_WORDS = 64
#: Stubs pointing at stubs: more than this is a broken archive.
MAX_STUB_HOPS = 4
#: Title-index candidates landed per search (each costs an entry lookup).
TITLE_CANDIDATES = 10
#: Pages whose source URLs tell where an archive's pages are on the web, when its
#: metadata does not (read once per archive), and the entries looked at to find them.
SITE_SAMPLES = 2
SITE_PROBES = 64
#: A sample page larger than this is passed over (a whole book): any page will do.
SITE_SAMPLE_MAX_BYTES = 1_000_000


class Landed(msgspec.Struct, frozen=True, kw_only=True):
    """Where a path ends after libzim redirects and HTML redirect stubs."""

    path: str
    title: str
    mimetype: str
    section: str | None = None


class Hit(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One candidate document of one library, as one engine found it."""

    path: str
    title: str
    alias: str | None = None
    """The title that matched when it is not the document's: a redirect's title in the
    title index, an API symbol."""
    section: str | None = None
    """Where in the document to land (a fragment stub, an answer, a symbol's anchor)."""
    query: str | None = None
    """The (relaxed) query libzim's search found it with; None for other engines."""
    weight: float = 0.0
    """The engine's score within its archive (BM25), when it reports one."""
    length: int = 0
    """Words in the document, as its index counts them (0: unknown)."""
    frequencies: tuple[int, ...] | None = None
    """How often the document uses each of the query's words (None: unknown)."""
    strength: float = 0.0
    """For symbol hits: how surely the query names the symbol."""
    named_by: str | None = None
    """For symbol hits: the text of the query that names it."""


class LibraryHits(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    fulltext: list[Hit]
    title: list[Hit]
    queries_tried: int
    symbols: list[Hit] = msgspec.field(default_factory=list)
    """API symbols the query names (devdocs)."""
    sections: list[Hit] = msgspec.field(default_factory=list)
    """Documents whose sections the library's section index found best, each landing on
    its best section, weighed by the share of the most a section could weigh (empty
    without a ready index)."""
    doc_count: int = 0
    """Documents in the full-text index (0: no statistics)."""
    average_length: float = 0.0
    frequencies: tuple[int, ...] = ()
    """Documents containing each of the query's words."""


def land(reader: ZimReader, adapter: Adapter, path: str) -> Landed:
    """Follow libzim redirects and HTML stubs from ``path`` to a content entry.

    A section carried by a fragment stub wins over the one a path implies
    (sotoki's ``a/<id>``), which applies only when no stub was involved.
    """
    requested = path
    section: str | None = None
    for _ in range(MAX_STUB_HOPS + 1):
        entry = reader.resolve(path)
        if entry.mimetype.startswith("text/html") and entry.size <= STUB_MAX_BYTES:
            stub = adapter.stub_landing(entry.path, reader.content(entry.path))
            if stub is not None:
                path, section = stub.path, stub.section or section
                continue
        if section is None:
            section = adapter.section_for_path(requested)
        title = entry_title(reader, adapter, entry.path, entry.title)
        return Landed(path=entry.path, title=title, mimetype=entry.mimetype, section=section)
    raise RedirectError(f"more than {MAX_STUB_HOPS} redirect stubs from {requested!r}")


def entry_title(reader: ZimReader, adapter: Adapter, path: str, title: str) -> str:
    """The title of the document at ``path``, whose entry is titled ``title``: an entry
    untitled (libzim gives it its path) takes the title of the entry the adapter names
    (:meth:`~corpus_mcp.adapters.Adapter.title_entry`), when the archive has it."""
    if title and title != path:
        return title
    other = adapter.title_entry(path)
    if other is None:
        return title
    try:
        named = reader.resolve(other).title
    except ZimError:
        return title
    return named if named and named != other else title


class ArchiveTables(msgspec.Struct, frozen=True):
    """What the corpus manager reads of an archive once, when it opens it: the tables
    an adapter names (:attr:`Adapter.symbol_index`, :attr:`Adapter.page_list`)."""

    symbols: SymbolTable = msgspec.field(default_factory=SymbolTable)
    """API symbols -> pages and anchors (devdocs2zim's ``navbar.json``)."""
    pages: PageList = msgspec.field(default_factory=PageList)
    """Where links that name pages by route lead, and pages' web addresses
    (mindtouch2zim's ``content/shared.json``)."""
    site: Site = msgspec.field(default_factory=Site)
    """Where the archive's pages are on the web (:mod:`corpus_mcp.webmap` leads links
    from other archives there)."""


def load_tables(reader: ZimReader, adapter: Adapter) -> ArchiveTables:
    """The archive's tables (read once at startup, and again when the file is replaced);
    a ZimError names the table that could not be read."""
    try:
        symbols = load_symbols(reader, adapter)
    except ZimError as exc:
        raise ZimError(f"its symbol index: {exc.reason}") from exc
    try:
        pages = load_pages(reader, adapter)
    except ZimError as exc:
        raise ZimError(f"its page list: {exc.reason}") from exc
    try:
        site = load_site(reader, adapter, pages)
    except ZimError as exc:
        raise ZimError(f"its metadata: {exc.reason}") from exc
    return ArchiveTables(symbols=symbols, pages=pages, site=site)


def load_site(reader: ZimReader, adapter: Adapter, pages: PageList) -> Site:
    """Where the archive's pages are on the web: what its metadata and page list say,
    else what the source URLs of a page or two show (the adapter says whether it needs
    them: :attr:`~corpus_mcp.adapters.Adapter.site_samples`). A handful of reads, never
    a walk of the archive."""
    info = reader.info
    facts = SiteFacts(
        name=info.name, title=info.title, source=reader.metadata("Source"), pages=pages
    )
    site = adapter.web_site(facts)
    if site.mounts or not adapter.site_samples:
        return site
    sampled = msgspec.structs.replace(facts, sources=sample_sources(reader, adapter))
    return adapter.web_site(sampled)


def sample_sources(reader: ZimReader, adapter: Adapter) -> tuple[tuple[str, str], ...]:
    """``(path, source URL)`` of up to :data:`SITE_SAMPLES` documents: the main page,
    then documents from the middle of the archive (a wiki's first paths are oddities)."""
    info = reader.info
    middle = info.entry_count // 2
    paths = [info.main_path] if info.main_path else []
    paths += [
        entry.path
        for entry in reader.entries(middle, middle + SITE_PROBES)
        if not entry.redirect
        and entry.size <= SITE_SAMPLE_MAX_BYTES
        and adapter.is_content(entry.path, entry.mimetype)
    ]
    found: list[tuple[str, str]] = []
    for path in dict.fromkeys(paths):
        source = _source_of(reader, adapter, path)
        if source is not None:
            found.append((path, source))
            if len(found) >= SITE_SAMPLES:
                break
    return tuple(found)


def _source_of(reader: ZimReader, adapter: Adapter, path: str) -> str | None:
    """The source URL the document at ``path`` gives (read for search: its metadata is
    all that is wanted), or None."""
    try:
        entry, content = reader.read(path)
    except ZimError:
        return None
    if entry.path != path or not adapter.is_content(path, entry.mimetype):
        return None  # a redirect: its target's path is not the one its URL names
    title = entry_title(reader, adapter, path, entry.title)
    try:
        document = adapter.parse(path, title, content, "", view=True)
    except ValueError:  # data the family's reader refuses: that page teaches nothing
        return None
    return adapter.source_url(document, reader.info.name)


def load_pages(reader: ZimReader, adapter: Adapter) -> PageList:
    """The adapter's page list of this archive; empty when the archive has none."""
    if adapter.page_list is None or not reader.has_entry(adapter.page_list):
        return PageList()
    return adapter.parse_page_list(reader.content(adapter.page_list))


def load_symbols(reader: ZimReader, adapter: Adapter) -> SymbolTable:
    """The adapter's symbol index of this archive (read once at startup); symbols whose
    page is missing from the archive are left out."""
    if adapter.symbol_index is None or not reader.has_entry(adapter.symbol_index):
        return SymbolTable()
    landings = adapter.parse_symbols(reader.content(adapter.symbol_index))
    titles: dict[str, str | None] = {}
    for _, landing in landings:
        if landing.path not in titles:
            try:
                titles[landing.path] = reader.resolve(landing.path).title
            except ZimError:
                titles[landing.path] = None
    return build_table(landings, titles)


def collect_hits(
    reader: ZimReader,
    adapter: Adapter,
    query: str,
    want: int,
    *,
    enough: int,
    checkpoint: Callable[[], None] = lambda: None,
    titles: bool = True,
) -> LibraryHits:
    """Full-text and title hits for ``query``, landed, filtered and deduplicated.

    Each index search asks for ``want`` hits; libzim's search relaxes the query while
    fewer than ``enough`` documents are found. Archives without a full-text index
    answer from titles only.
    """
    words = ranking.query_words(query)
    if reader.fulltext_index is not None:
        found = _indexed_fulltext(reader, adapter, words, want, checkpoint)
    elif reader.info.has_fulltext_index:
        found = _libzim_fulltext(
            reader, adapter, query, words, want=want, enough=enough, checkpoint=checkpoint
        )
    else:
        found = LibraryHits(fulltext=[], title=[], queries_tried=0)
    checkpoint()
    if not titles:
        return found
    titled = _titles(reader, adapter, query, want, checkpoint)
    return msgspec.structs.replace(found, title=titled)


def _indexed_fulltext(
    reader: ZimReader,
    adapter: Adapter,
    words: Sequence[str],
    want: int,
    checkpoint: Callable[[], None],
) -> LibraryHits:
    index = reader.fulltext_index
    assert index is not None
    parts = [ranking.index_parts(word) for word in words]
    frequencies = tuple(index.word_frequency(p) for p in parts)
    checkpoint()
    hits: list[Hit] = []
    seen: set[str] = set()
    for found in index.search(parts, want):
        hit: Hit | None
        if found.length < STUB_MAX_WORDS or adapter.result_for(found.path) != found.path:
            checkpoint()
            hit = _content_hit(reader, adapter, found.path)
        elif adapter.is_content(found.path, "text/html") and not _is_main(
            reader, adapter, found.path
        ):
            hit = Hit(path=found.path, title=found.title)
        else:
            hit = None
        if hit is None or hit.path in seen:
            continue
        seen.add(hit.path)
        if hit.path == found.path or (
            adapter.stubs_indexed_with_content and adapter.result_for(found.path) == hit.path
        ):
            # A stub's own numbers say nothing of the article it lands on, unless the
            # family indexes the article's words under its stub.
            hit = msgspec.structs.replace(
                hit, weight=found.weight, length=found.length, frequencies=found.frequencies
            )
        hits.append(hit)
    return LibraryHits(
        fulltext=hits,
        title=[],
        queries_tried=1,
        doc_count=index.doc_count,
        average_length=index.average_length,
        frequencies=frequencies,
    )


def _libzim_fulltext(
    reader: ZimReader,
    adapter: Adapter,
    query: str,
    words: Sequence[str],
    *,
    want: int,
    enough: int,
    checkpoint: Callable[[], None],
) -> LibraryHits:
    """libzim ANDs every word: relax the query (rarest words kept) while too few match."""
    frequencies: list[int] = []
    for word in words:
        checkpoint()
        frequencies.append(reader.document_frequency(" ".join(ranking.index_parts(word))))
    rarity = dict(zip(words, frequencies, strict=True))
    hits: list[Hit] = []
    seen: set[str] = set()
    tried = 0
    for relaxed in ranking.relaxations(query, rarity):
        checkpoint()
        tried += 1
        for raw in reader.fulltext(relaxed, want).paths:
            checkpoint()
            hit = _content_hit(reader, adapter, raw)
            if hit is not None and hit.path not in seen:
                seen.add(hit.path)
                hits.append(msgspec.structs.replace(hit, query=relaxed))
        if len(hits) >= enough:
            break
    return LibraryHits(
        fulltext=hits,
        title=[],
        queries_tried=tried,
        doc_count=reader.info.article_count,
        frequencies=tuple(frequencies),
    )


def _titles(
    reader: ZimReader,
    adapter: Adapter,
    query: str,
    want: int,
    checkpoint: Callable[[], None],
) -> list[Hit]:
    """Documents whose title (or a redirect's title) shares the query's words.

    The title index read directly is asked once with every word optional; libzim's
    suggestions (words ANDed, the last one a prefix) are asked for the query's most
    informative words and for runs of words that may spell out a title.
    """
    index = reader.title_index
    limit = TITLE_CANDIDATES
    if index is not None:
        found = index.search(ranking.title_words(query), limit)
        if not adapter.redirect_stubs and all(h.target for h in found):
            # The index names each entry's target and the family writes no HTML
            # stubs: the hits are known without reading the archive.
            return _indexed_titles(reader, adapter, found)
        pairs = [(h.target or h.path, h.title) for h in found]
    else:
        pairs = []
        lookups = [ranking.title_query(query), *ranking.title_ngrams(query)]
        for lookup in ranking.distinct(lookups):
            if not lookup:
                continue
            checkpoint()
            pairs += [(s.path, s.title) for s in reader.suggest(lookup, want)]
    hits: list[Hit] = []
    seen: set[str] = set()
    for path, matched_title in pairs[:limit]:
        checkpoint()
        hit = _content_hit(reader, adapter, path, alias=matched_title)
        if hit is not None and hit.path not in seen:
            seen.add(hit.path)
            hits.append(hit)
    return hits


def _indexed_titles(reader: ZimReader, adapter: Adapter, found: Sequence[TitleHit]) -> list[Hit]:
    """Title-index hits as documents, from what the index records: a redirect's hit is
    its target, found by the redirect's title (the target's own title joins once the
    document is read)."""
    hits: list[Hit] = []
    seen: set[str] = set()
    for item in found:
        path = item.target or item.path
        offered = adapter.result_for(path)
        if offered != path:
            if not reader.has_entry(offered):
                continue
            path = offered
        if (
            path in seen
            or not adapter.is_content(path, "text/html")
            or _is_main(reader, adapter, path)
        ):
            continue
        seen.add(path)
        section = adapter.section_for_path(item.path) if path != item.path else None
        hits.append(Hit(path=path, title=item.title, section=section))
    return hits


def _is_main(reader: ZimReader, adapter: Adapter, path: str) -> bool:
    return adapter.main_page_is_navigation and path == reader.info.main_path


def _content_hit(
    reader: ZimReader, adapter: Adapter, raw: str, alias: str | None = None
) -> Hit | None:
    """The landed document of a raw hit, or None for non-documents and broken entries.

    ``alias`` is the title the title index matched (a redirect's own title, such as
    "Charles, Ray"); ranking may judge the title match on it instead of the target's.
    """
    try:
        landed = land(reader, adapter, raw)
        offered = adapter.result_for(landed.path)
        if offered != landed.path:  # a page standing for another: that one is the hit
            landed = land(reader, adapter, offered)
    except ZimError:  # a dangling or looping entry is not a result, never an error
        return None
    if not adapter.is_content(landed.path, landed.mimetype) or _is_main(
        reader, adapter, landed.path
    ):
        return None
    if alias == landed.title:
        alias = None
    return Hit(path=landed.path, title=landed.title, alias=alias, section=landed.section)


#: Sections asked of a library's section index per question, and at most how many of one
#: document: enough documents for fusion to choose from, each with its best sections.
SECTION_CANDIDATES = 20
SECTIONS_PER_DOCUMENT = 3


def with_sections(found: LibraryHits, index: SectionIndex, query: str) -> LibraryHits:
    """A library's hits with what its section index adds: the documents of the best
    sections (the small section of a long page that BM25 over the whole page misses,
    the page named by a compound identifier), each landing on its best section and
    weighed by the share of the most any section could weigh for the question; the
    documents redirects' titles name. Raises :class:`~corpus_mcp.sections.IndexUnreadable`."""
    answer = index.ask(
        index.analyser.question(query), limit=SECTION_CANDIDATES, per_document=SECTIONS_PER_DOCUMENT
    )
    best = answer.max_weight
    documents: dict[str, Hit] = {}
    redirects: dict[str, Hit] = {}
    for item in answer.found:
        share = item.weight / best if best > 0 else 0.0
        if item.redirect:
            if item.path not in redirects:
                redirects[item.path] = Hit(
                    path=item.path,
                    title=item.title,
                    alias=item.redirect,
                    section=item.section or None,
                    weight=share,
                )
        elif item.path not in documents:
            documents[item.path] = Hit(
                path=item.path, title=item.title, section=item.section or None, weight=share
            )
    return msgspec.structs.replace(
        found,
        sections=list(documents.values()),
        title=_unique([*found.title, *redirects.values()]),
    )


def _unique(hits: Sequence[Hit]) -> list[Hit]:
    """Hits without a second one of the same document (the first kept)."""
    kept: dict[str, Hit] = {}
    for hit in hits:
        kept.setdefault(hit.path, hit)
    return list(kept.values())
