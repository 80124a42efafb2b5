"""Family adapters: mwoffliner (``mediawiki``), devdocs2zim (``devdocs``), sotoki
(``stackexchange``), gutenberg2zim (``gutenberg``), ifixit2zim (``ifixit``), fcc2zim
(``freecodecamp``), mindtouch2zim (``libretexts``), ted2zim (``ted``) and any other HTML
archive (``html``), each turning entries into documents."""

from __future__ import annotations

from typing import Final

from corpus_mcp.adapters.base import (
    Adapter,
    AdapterDefaults,
    Landing,
    PageList,
    Site,
    SiteFacts,
    symbol_key,
)
from corpus_mcp.adapters.devdocs import DevDocsAdapter
from corpus_mcp.adapters.freecodecamp import FreeCodeCampAdapter
from corpus_mcp.adapters.gutenberg import GutenbergAdapter
from corpus_mcp.adapters.html import HtmlAdapter
from corpus_mcp.adapters.ifixit import IfixitAdapter
from corpus_mcp.adapters.libretexts import LibreTextsAdapter
from corpus_mcp.adapters.mediawiki import MediaWikiAdapter
from corpus_mcp.adapters.stackexchange import StackExchangeAdapter
from corpus_mcp.adapters.ted import TedAdapter

ADAPTERS: Final[dict[str, type[Adapter]]] = {
    "mediawiki": MediaWikiAdapter,
    "devdocs": DevDocsAdapter,
    "stackexchange": StackExchangeAdapter,
    "html": HtmlAdapter,
    "gutenberg": GutenbergAdapter,
    "ifixit": IfixitAdapter,
    "freecodecamp": FreeCodeCampAdapter,
    "libretexts": LibreTextsAdapter,
    "ted": TedAdapter,
}
ADAPTER_NAMES: Final = tuple(ADAPTERS)


def get_adapter(name: str) -> Adapter:
    """The adapter for a manifest's ``adapter`` value (validated by config)."""
    try:
        return ADAPTERS[name]()
    except KeyError:
        raise ValueError(
            f"unknown adapter {name!r}; expected one of {', '.join(ADAPTER_NAMES)}"
        ) from None


__all__ = [
    "ADAPTERS",
    "ADAPTER_NAMES",
    "Adapter",
    "AdapterDefaults",
    "Landing",
    "PageList",
    "Site",
    "SiteFacts",
    "get_adapter",
    "symbol_key",
]
