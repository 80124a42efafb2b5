"""Reading a page's companion entries: the other entries its document is made of.

An adapter is pure (bytes in, a document out), yet a document may need more than its
page: a TED talk's transcript is in its subtitle files. The adapter names them
(:meth:`~corpus_mcp.adapters.base.Adapter.companions`); this reads those the archive has,
inside the same archive call as the page (fetch, the search-time view and the section
index build all read through here), and the adapter's
:meth:`~corpus_mcp.adapters.base.Adapter.parse_with_companions` gets their bytes.

Only what exists is read, and not without bounds: a path the archive lacks, cannot read or
that is no content (a redirect to nowhere) is left out, as are entries past
:data:`MAX_COMPANIONS` or larger than :data:`COMPANION_MAX_BYTES` (a named video is not
read whole to be found useless).
"""

from __future__ import annotations

from typing import Final

from corpus_mcp.adapters import Adapter
from corpus_mcp.zim import ZimError, ZimReader

__all__ = ["COMPANION_MAX_BYTES", "MAX_COMPANIONS", "read_companions"]

#: Companion entries read per page at most (a talk has one subtitle file per language;
#: TED's most translated talks have about a hundred).
MAX_COMPANIONS: Final = 128
#: A companion larger than this is not read (a subtitle file is a few dozen KB).
COMPANION_MAX_BYTES: Final = 4 * 1024 * 1024


def read_companions(
    reader: ZimReader, adapter: Adapter, path: str, content: bytes
) -> dict[str, bytes]:
    """The bytes of the companions of the page at ``path`` the archive has, by path."""
    found: dict[str, bytes] = {}
    for companion in adapter.companions(path, content):
        if len(found) >= MAX_COMPANIONS:
            break
        if companion == path or companion in found:
            continue
        try:
            entry = reader.resolve(companion)
            if entry.size > COMPANION_MAX_BYTES:
                continue
            found[companion] = reader.read(entry.path)[1]
        except ZimError:  # absent, a broken redirect, or unreadable: the page goes without
            continue
    return found
