"""Archives whose front articles are stubs in front of the content (pure): fcc2zim and
mindtouch2zim write a Vue.js reader (``index.html``) that loads each page's content from a
data file (a challenge's Markdown, a page's HTML inside JSON), and one front article per
page: an empty HTML stub holding the page's title and a ``meta refresh`` into the reader.

The data file is the document (it holds every word); the stub is how the archive's title
index (and mindtouch2zim's full-text index, fed through IndexData) finds it, so a hit on a
stub is offered as its data file, a fetch of a stub lands on it, and the data file, titled
by its path, takes the stub's title. The reader, its scripts and its other data (the page
list, locales) are never documents.
"""

from __future__ import annotations

import re

from corpus_mcp.adapters.base import AdapterDefaults, Landing, Site, SiteFacts, listed_site

__all__ = ["FrontedAdapter"]


class FrontedAdapter(AdapterDefaults):
    """A family of data files fronted by stubs: ``content`` and ``stub`` match the same
    page's two paths with the same named groups, ``content_path`` / ``stub_path`` fill
    them in."""

    content: re.Pattern[str]
    stub: re.Pattern[str]
    content_path: str
    stub_path: str
    main_page_is_navigation = True
    """The main page is the Vue.js reader: code, never a result."""
    site_samples = False
    """A page's address comes from the page list (or the family's own rule), never
    from its content."""

    def web_site(self, facts: SiteFacts) -> Site:
        """The site the page list names: its routes are the paths of its addresses."""
        return listed_site(facts)

    def web_paths(self, rest: str) -> tuple[str, ...]:
        """The address's path is a route of the page list (which leads to its data file)."""
        route = rest.strip("/")
        return (route,) if route else ()

    def is_content(self, path: str, mimetype: str) -> bool:
        """The data files, told by their path (the archive writes nothing else there):
        whatever the mimetype, Markdown or JSON, which this family reads as documents."""
        return self.content.fullmatch(path) is not None

    def serves(self, path: str) -> bool:
        """A data file or the stub in front of it."""
        return self.is_content(path, "") or self.stub.fullmatch(path) is not None

    def result_for(self, path: str) -> str:
        """A hit on a stub offers its data file; any other path itself."""
        found = self.stub.fullmatch(path)
        return self.content_path.format(**found.groupdict()) if found else path

    def title_entry(self, path: str) -> str | None:
        """A data file is titled by its stub."""
        found = self.content.fullmatch(path)
        return self.stub_path.format(**found.groupdict()) if found else None

    def stub_landing(self, path: str, html: bytes) -> Landing | None:
        """A stub lands on its data file (not where its refresh goes: the reader)."""
        offered = self.result_for(path)
        return Landing(path=offered) if offered != path else None
