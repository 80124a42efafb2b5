"""Family adapters: mwoffliner (``mediawiki``), devdocs2zim (``devdocs``), sotoki (``stackexchange``)."""

from __future__ import annotations

from typing import Final

from corpus_mcp.adapters.base import Adapter, Landing

ADAPTER_NAMES: Final = ("mediawiki", "devdocs", "stackexchange")


def get_adapter(name: str) -> Adapter:
    """The adapter for a manifest's ``adapter`` value (validated by config)."""
    if name == "mediawiki":
        from corpus_mcp.adapters.mediawiki import MediaWikiAdapter

        return MediaWikiAdapter()
    if name == "devdocs":
        from corpus_mcp.adapters.devdocs import DevDocsAdapter

        return DevDocsAdapter()
    if name == "stackexchange":
        from corpus_mcp.adapters.stackexchange import StackExchangeAdapter

        return StackExchangeAdapter()
    raise ValueError(f"unknown adapter {name!r}; expected one of {', '.join(ADAPTER_NAMES)}")


__all__ = ["ADAPTER_NAMES", "Adapter", "Landing", "get_adapter"]
