"""The generic adapter for any HTML archive (``html``): zimit/warc2zim crawls and every
family without an adapter of its own. ``adapter`` reads a page; ``content`` finds its
main content and drops its chrome."""

from corpus_mcp.adapters.html.adapter import HtmlAdapter

__all__ = ["HtmlAdapter"]
