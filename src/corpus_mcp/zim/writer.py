"""Build ZIM archives with libzim's writer (test fixtures, the demo corpus, benchmarks).

libzim's Creator prints progress to the process's stdout even with verbosity off; a
stray line on stdout would corrupt a stdio transport or a CLI's table, so the build
runs with file descriptor 1 pointed at /dev/null.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import msgspec
from libzim.writer import (
    Creator,
    Hint,
    IndexData,
    Item,
    StringProvider,
)


class Page(msgspec.Struct, frozen=True, kw_only=True):
    """One content item: HTML page, text file or asset."""

    path: str
    title: str = ""
    content: str | bytes = ""
    mimetype: str = "text/html"
    front: bool = True
    index_text: str | None = None
    """Explicit full-text content (devdocs2zim passes IndexData); None = libzim's HTML indexer."""
    indexed: bool = True
    """False for assets that must not enter the full-text index."""


class Redirect(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    target: str
    title: str = ""
    front: bool = True


class _IndexData(IndexData):  # type: ignore[misc]
    def __init__(self, title: str, content: str) -> None:
        super().__init__()
        self._title, self._content = title, content

    def has_indexdata(self) -> bool:
        return True

    def get_title(self) -> str:
        return self._title

    def get_content(self) -> str:
        return self._content

    def get_keywords(self) -> str:
        return ""

    def get_wordcount(self) -> int:
        return len(self._content.split())


class _Item(Item):  # type: ignore[misc]
    def __init__(self, page: Page) -> None:
        super().__init__()
        self.page = page

    def get_path(self) -> str:
        return self.page.path

    def get_title(self) -> str:
        return self.page.title

    def get_mimetype(self) -> str:
        return self.page.mimetype

    def get_contentprovider(self) -> Any:
        data = self.page.content
        return StringProvider(data if isinstance(data, bytes) else data.encode("utf-8"))

    def get_hints(self) -> dict[Any, bool]:
        return {Hint.FRONT_ARTICLE: self.page.front, Hint.COMPRESS: True}


class _ItemWithIndexData(_Item):
    """python-libzim uses its HTML indexer only when ``get_indexdata`` is absent, so the
    override lives on a subclass; returning None keeps an item out of the index."""

    def get_indexdata(self) -> Any:
        if not self.page.indexed or self.page.index_text is None:
            return None
        return _IndexData(self.page.title, self.page.index_text)


@contextlib.contextmanager
def _stdout_silenced() -> Iterator[None]:
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def write_zim(
    path: str | os.PathLike[str],
    *,
    pages: Iterable[Page],
    redirects: Iterable[Redirect] = (),
    metadata: Mapping[str, str],
    main_path: str | None = None,
    fulltext_index: bool = True,
    language: str = "eng",
) -> Path:
    """Write a new-scheme archive and return its path (an existing file is replaced)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.unlink(missing_ok=True)
    with _stdout_silenced():
        creator = Creator(str(tmp)).config_indexing(fulltext_index, language)
        creator.config_verbose(False)
        with creator:
            if main_path is not None:
                creator.set_mainpath(main_path)
            for key, value in metadata.items():
                creator.add_metadata(key, value)
            for page in pages:
                custom = page.index_text is not None or not page.indexed
                creator.add_item(_ItemWithIndexData(page) if custom else _Item(page))
            for redirect in redirects:
                creator.add_redirection(
                    redirect.path,
                    redirect.title,
                    redirect.target,
                    {Hint.FRONT_ARTICLE: redirect.front},
                )
    tmp.replace(out)
    return out
