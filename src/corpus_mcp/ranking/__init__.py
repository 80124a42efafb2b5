"""Query handling, federated ranking, snippets and section hints: pure functions.

Nothing here touches trio, libzim or I/O. The corpus manager

1. cleans the agent's text with :func:`normalise_query`;
2. asks each archive's full-text index for :func:`relaxations` in turn while too few
   hits come back, and its title index for :func:`title_query`;
3. merges every (library, list) ranking with :func:`fuse` (reciprocal rank fusion, then
   a lexical title rerank of near-ties, because ranks from different archives are not
   comparable) and spreads libraries with :func:`diversify`;
4. describes each hit with :func:`snippet` and :func:`result_hints` (built on
   :func:`section_hints`).

One concern per module, imports pointing one way (towards :mod:`.text`):

- :mod:`.text`: tokens, stop and generic words, stems, title keys;
- :mod:`.query`: steps 1 and 2, and the Xapian facts they rely on;
- :mod:`.fusion`: step 3;
- :mod:`.passages`: a section's Markdown as plain-text passages;
- :mod:`.snippets`: step 4, on those passages.
"""

from corpus_mcp.ranking.fusion import (
    RRF_K,
    TIE_RATIO,
    Candidate,
    diversify,
    fuse,
    is_exact_title,
    rrf,
    title_coverage,
)
from corpus_mcp.ranking.passages import LIST, PROSE, TABLE, Passage, flatten_inline, passages
from corpus_mcp.ranking.query import (
    MAX_QUERY_CHARS,
    MAX_RELAXED_TERMS,
    MAX_TITLE_TERMS,
    MIN_RELAXED_TERMS,
    normalise_query,
    relaxation_weight,
    relaxations,
    title_query,
)
from corpus_mcp.ranking.snippets import (
    ELLIPSIS,
    HINT_THRESHOLD,
    REFERENCE_TITLES,
    result_hints,
    section_hints,
    snippet,
)
from corpus_mcp.ranking.text import (
    GENERIC_WORDS,
    STOP_WORDS,
    informative_terms,
    query_terms,
    topic_terms,
)

__all__ = [
    "ELLIPSIS",
    "GENERIC_WORDS",
    "HINT_THRESHOLD",
    "LIST",
    "MAX_QUERY_CHARS",
    "MAX_RELAXED_TERMS",
    "MAX_TITLE_TERMS",
    "MIN_RELAXED_TERMS",
    "PROSE",
    "REFERENCE_TITLES",
    "RRF_K",
    "STOP_WORDS",
    "TABLE",
    "TIE_RATIO",
    "Candidate",
    "Passage",
    "diversify",
    "flatten_inline",
    "fuse",
    "informative_terms",
    "is_exact_title",
    "normalise_query",
    "passages",
    "query_terms",
    "relaxation_weight",
    "relaxations",
    "result_hints",
    "rrf",
    "section_hints",
    "snippet",
    "title_coverage",
    "title_query",
    "topic_terms",
]
