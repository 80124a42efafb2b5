"""The fetch pipeline: a ref's document, whole or by section ids, filled up to the fetch
budget, its links checked and led into the corpus.

:func:`fetch_document` lands the ref (redirects and anchors resolved in the server),
reads the whole document (from the cache when a search or a fetch read it whole before),
chooses what to return (the sections asked for, else the section the ref's anchor or its
redirect lands on, else the whole document), fills the budget (:mod:`corpus_mcp.folding`)
and rewrites links: a path the archive lacks is respelled or dropped, a web address
another archive holds becomes a ref (:mod:`corpus_mcp.assemble`).
"""

from __future__ import annotations

import logging
from typing import Final

import msgspec
import trio

from corpus_mcp import assemble, folding, metrics, refs
from corpus_mcp.config import Settings
from corpus_mcp.documents import Documents
from corpus_mcp.errors import CorpusError
from corpus_mcp.library import STUCK, ArchiveStuck, Library
from corpus_mcp.wire import FetchOutput
from corpus_mcp.zim import ArchiveUnavailable

log = logging.getLogger("corpus_mcp.fetching")

#: Why a fetch is refused when its own archive work outlasted SEARCH_TIMEOUT.
TIMED_OUT: Final = "reading the document took longer than the search timeout"


async def fetch_document(
    settings: Settings,
    documents: Documents,
    library: Library,
    path: str,
    *,
    fragment: str | None,
    sections: list[str] | None,
) -> FetchOutput:
    """The document at ``path`` of ``library`` (a decoded ref), whole or by section ids;
    ``library_unavailable`` when its archive cannot answer, ``not_found`` when no
    document is there, ``section_not_found`` for an id the document lacks."""
    name = library.name
    document = documents.cached_whole(library, path)
    landing: str | None = None
    if document is None:
        # A fetch's archive work gets the time a search gets: an archive that does
        # not answer must not hold the call forever.
        timeout = settings.search_timeout
        try:
            with trio.fail_after(timeout):
                landed = await documents.land(library, path)
                path, landing = landed.path, landed.section
                document = await documents.document(library, landed.path, landed.title)
        except ArchiveUnavailable as exc:
            raise unavailable(settings, name, exc.reason) from None
        except ArchiveStuck:
            raise unavailable(settings, name, STUCK, retry_after=timeout) from None
        except trio.TooSlowError:
            metrics.library_failed(name, "read_timeout")
            log.warning("fetch: reading from %s timed out", name)
            raise unavailable(settings, name, TIMED_OUT, retry_after=timeout) from None
    # What to return: the sections asked for, else the section the ref's anchor or
    # its redirect lands on (an anchor no section holds means the whole document:
    # every ref a fetched document links to must be fetchable).
    index = assemble.section_index(document)
    if sections:
        wanted: list[str] | None = sections
    elif fragment and fragment in index:
        wanted = [fragment]
    elif landing and landing in index:
        wanted = [landing]
    else:
        wanted = None
    budget = settings.fetch_budget_chars
    if wanted is None:
        folded = folding.fold_document(document, budget=budget)
    else:
        resolved = assemble.resolve_asked(document, wanted)
        folded = folding.fold_sections(
            assemble.select_sections(document, wanted),
            resolved.ids,
            budget=budget,
            starts=resolved.starts,
        )
    exists = await documents.existing(library, assemble.link_paths(folded.sections))
    respelled = await documents.respelled(library, exists)
    web = await documents.web_links(library, document)
    chosen = assemble.without_dead_links(folded.sections, exists, index, respelled, web)
    return FetchOutput(
        ref=refs.encode(name, path),
        library=name,
        kind=document.kind,
        title=document.title,
        snapshot=library.snapshot,
        source_url=library.tables.pages.urls.get(document.path)
        or library.adapter.source_url(document, library.service.info.name)
        or msgspec.UNSET,
        sections=chosen,
        available_sections=assemble.available_sections(
            document, [s.id for s in chosen], folded.omitted
        ),
        truncated=folded.truncated,
    )


def unavailable(
    settings: Settings, library: str, reason: str, *, retry_after: float | None = None
) -> CorpusError:
    """``library_unavailable``, with when to try again (the next archive check, unless
    said otherwise)."""
    seconds = settings.archive_recheck_seconds if retry_after is None else retry_after
    return CorpusError(
        "library_unavailable",
        f"library {library!r} is temporarily unavailable ({reason}); retry in "
        f"{seconds:g} s or later, or search the other libraries",
        library=library,
        reason=reason,
        retry_after=seconds,
    )
