"""Documents read for search from the section index instead of from their pages.

Ranking reads a candidate document for its headings and passages, hints pick its
sections, a snippet is cut from one: all of that needs only the sections the question
matches, where they sit in the page, and the page's key sections (its lead; a thread's
accepted answer). The index holds exactly that (:class:`~.records.StoredSection`), so a
candidate is read as a document made of those sections (:func:`.records.partial_document`)
and ranked as any document is (:func:`corpus_mcp.ranking.terms.index_document`), with no
page read, parsed or cached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from corpus_mcp.document import Document
from corpus_mcp.ranking.query import query_words
from corpus_mcp.ranking.terms import DocumentTerms, index_document
from corpus_mcp.sections.records import partial_document
from corpus_mcp.sections.store import SectionIndex

#: The sections of one document a question reads at most (besides its key sections):
#: the best ones decide its passage and heading evidence, its hints and its snippet.
SECTIONS_READ: Final = 16


def read_documents(
    index: SectionIndex, query: str, paths: Sequence[str]
) -> dict[str, tuple[Document, DocumentTerms]]:
    """The documents at ``paths`` as search reads them, from the index (a path the
    index does not hold, such as a listing page, is left out: it is no document search
    returns); raises :class:`~.store.IndexUnreadable`."""
    asked = index.sections_of(index.analyser.question(query), paths, SECTIONS_READ)
    found = {path: [hit.section for hit in hits] for path, hits in asked.items()}
    words = query_words(query)
    out: dict[str, tuple[Document, DocumentTerms]] = {}
    for path, sections in found.items():
        document = partial_document(sections)
        terms = index_document(document)
        # Every ranking step asks where the question's words are: found here, in one
        # pass over the passages, in this worker thread.
        terms.find(words)
        out[path] = (document, terms)
    return out
