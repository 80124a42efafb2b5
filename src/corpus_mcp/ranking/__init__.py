"""Query handling, evidence scoring, snippets and section hints: pure functions.

Nothing here touches trio, libzim or I/O. The corpus manager

1. cleans the agent's text with :func:`normalise_query` and takes its
   :func:`query_words` (with :func:`index_parts` for the indexes, :func:`title_words`
   for title indexes, :func:`symbol_candidates` for API symbols; :func:`relaxations`
   and :func:`title_ngrams` where only libzim's ANDed search is available);
2. scores every library's candidates on the same evidence (:mod:`.evidence`: word
   weights from the whole corpus, body, titles, headings, passages, symbols, scope),
   breaks ties with :func:`rrf` and spreads libraries with :func:`diversify`;
3. describes each hit with :func:`snippet` and :func:`result_hints` (built on
   :func:`section_hints`).

One concern per module, imports pointing one way (towards :mod:`.text`):

- :mod:`.text`: tokens, stop and generic words, stems, title keys;
- :mod:`.query`: step 1, and the Xapian facts it relies on;
- :mod:`.passages`: a section's Markdown as plain-text passages;
- :mod:`.evidence` and :mod:`.fusion`: step 2;
- :mod:`.hints` and :mod:`.snippets`: step 3, on those passages.
"""

from corpus_mcp.ranking.fusion import RRF_K, diversify, rrf
from corpus_mcp.ranking.hints import HINT_MIN, result_hints, section_hints
from corpus_mcp.ranking.passages import LIST, PROSE, TABLE, Passage, flatten_inline, passages
from corpus_mcp.ranking.query import (
    MAX_QUERY_CHARS,
    MAX_RELAXED_TERMS,
    MAX_TITLE_TERMS,
    MIN_RELAXED_TERMS,
    index_parts,
    normalise_query,
    query_words,
    relaxations,
    symbol_candidates,
    title_ngrams,
    title_query,
    title_words,
)
from corpus_mcp.ranking.snippets import ELLIPSIS, snippet
from corpus_mcp.ranking.text import (
    GENERIC_WORDS,
    STOP_WORDS,
    distinct,
    informative_terms,
    query_terms,
    topic_terms,
)

__all__ = [
    "ELLIPSIS",
    "GENERIC_WORDS",
    "HINT_MIN",
    "LIST",
    "MAX_QUERY_CHARS",
    "MAX_RELAXED_TERMS",
    "MAX_TITLE_TERMS",
    "MIN_RELAXED_TERMS",
    "PROSE",
    "RRF_K",
    "STOP_WORDS",
    "TABLE",
    "Passage",
    "distinct",
    "diversify",
    "flatten_inline",
    "index_parts",
    "informative_terms",
    "normalise_query",
    "passages",
    "query_terms",
    "query_words",
    "relaxations",
    "result_hints",
    "rrf",
    "section_hints",
    "snippet",
    "symbol_candidates",
    "title_ngrams",
    "title_query",
    "title_words",
    "topic_terms",
]
