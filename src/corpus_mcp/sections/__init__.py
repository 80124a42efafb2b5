"""The section index: every archive's sections, built once, searched without reading pages.

``analysis`` makes terms (the same for indexing and asking), ``records`` turns an
adapter's search-time view of a page into the records stored and back into a document of
its sections, ``store`` writes and reads the Xapian files, ``build`` builds one archive's
index with worker processes (resumable), ``catalog`` knows where indexes live and what
state each is in.
"""

from corpus_mcp.sections.store import IndexMeta, IndexUnreadable, SectionHit, SectionIndex

__all__ = ["IndexMeta", "IndexUnreadable", "SectionHit", "SectionIndex"]
