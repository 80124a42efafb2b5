"""The corpus-wide map from web addresses to documents (pure): which libraries an address
may lead to, in which order, with which paths and which note."""

from __future__ import annotations

import pytest

from corpus_mcp.adapters import PageList, Site, SiteFacts, get_adapter
from corpus_mcp.addresses import Mount
from corpus_mcp.webmap import (
    LibrarySite,
    Overlap,
    WebMap,
    WebTarget,
    describe_overlap,
    first_held,
    library_site,
    version_note,
    wanted_paths,
)


def _site(
    name: str, adapter: str, *mounts: Mount, title: str = "", snapshot: str | None = "2026-05"
) -> LibrarySite:
    return library_site(
        name, get_adapter(adapter), Site(mounts=mounts, title=title), PageList(), snapshot
    )


WIKIPEDIA = _site("wikipedia", "mediawiki", Mount("en.wikipedia.org/wiki/"))
DEVDOCS = _site("python", "devdocs", Mount("docs.python.org/3.13/"), title="Python 3.13 Docs")
CRAWL = _site(
    "crawl",
    "html",
    Mount("docs.python.org/3.11/", "docs.python.org/3.11/"),
    Mount("docs.python.org/", "docs.python.org/"),
    title="Python 3.11 documentation",
    snapshot="2026-12",
)
UNIX = _site("unix", "stackexchange", Mount("unix.stackexchange.com/"))


def test_a_wikipedia_link_leads_to_its_title_and_section() -> None:
    webmap = WebMap([WIKIPEDIA])
    assert webmap.resolve("https://en.m.wikipedia.org/wiki/NTFS#Alternate_data_stream_(ADS)") == (
        WebTarget("wikipedia", ("NTFS",), "Alternate_data_stream_(ADS)", None),
    )
    assert webmap.resolve("http://en.wikipedia.org/wiki/ray%20charles") == (
        WebTarget("wikipedia", ("ray_charles", "Ray_charles"), None, None),
    )
    # The wiki's script form of an article is the article (a title with a slash too).
    assert webmap.resolve(
        "https://en.wikipedia.org/w/index.php?title=NTFS#Alternate_data_stream_(ADS)"
    ) == (WebTarget("wikipedia", ("NTFS",), "Alternate_data_stream_(ADS)", None),)
    assert webmap.resolve(
        "https://en.m.wikipedia.org/w/index.php?title=Diamond+problem&redirect=no"
    ) == (WebTarget("wikipedia", ("Diamond_problem",), None, None),)
    assert webmap.resolve("https://en.wikipedia.org/w/index.php?title=AC%2FDC&action=view") == (
        WebTarget("wikipedia", ("AC/DC",), None, None),
    )


@pytest.mark.parametrize(
    "url",
    [
        "https://fr.wikipedia.org/wiki/NTFS",  # another wiki
        # The script form of what is no article's current text, or no article at all.
        "https://en.wikipedia.org/w/index.php?title=NTFS&oldid=1182",
        "https://en.wikipedia.org/w/index.php?title=NTFS&diff=prev&oldid=1182",
        "https://en.wikipedia.org/w/index.php?title=NTFS&action=edit",
        "https://en.wikipedia.org/w/index.php?title=NTFS&action=history",
        "https://en.wikipedia.org/w/index.php?title=&action=view",
        "https://en.wikipedia.org/w/index.php?search=ntfs",
        "https://en.wikipedia.org/w/index.php?title=..%2F..%2Fw%2Fapi.php",
        "https://en.wikipedia.org/index.php?title=NTFS",  # not the script path
        "https://en.wikipedia.org/wiki/",  # no title
        "https://example.org/",
        "mailto:someone@example.org",
        "corpus://wikipedia/NTFS",
        "#section",
    ],
)
def test_addresses_no_library_holds(url: str) -> None:
    assert WebMap([WIKIPEDIA, DEVDOCS, CRAWL, UNIX]).resolve(url) == ()


def test_the_very_version_first_then_the_newer_snapshot_with_a_note() -> None:
    webmap = WebMap([DEVDOCS, CRAWL])
    exact = webmap.resolve("https://docs.python.org/3.13/library/shutil.html#shutil.copyfile")
    assert exact[0] == WebTarget(
        "python", ("library/shutil", "library/shutil.html"), "shutil.copyfile", None
    )
    # The crawl holds its host's pages: tried as written (an exact address, less
    # specific than the documentation's own prefix), then as its own version, noted.
    assert [(t.library, t.paths[0], t.note) for t in exact[1:]] == [
        ("crawl", "docs.python.org/3.13/library/shutil", None),
        ("crawl", "docs.python.org/3.11/library/shutil", "Python 3.11 here"),
    ]
    moving = webmap.resolve("https://docs.python.org/3/library/shutil.html")
    assert [(t.library, t.paths[0], t.note) for t in moving] == [
        ("crawl", "docs.python.org/3/library/shutil", None),
        ("crawl", "docs.python.org/3.11/library/shutil", "Python 3.11 here"),  # newer snapshot
        ("python", "library/shutil", "Python 3.13 here"),
    ]
    latest = webmap.resolve("https://docs.python.org/dev/")
    assert latest[-1] == WebTarget("python", ("index", "index.html"), None, "Python 3.13 here")


def test_two_snapshots_of_one_site_the_newer_first() -> None:
    rebuilt = _site("rebuilt", "mediawiki", Mount("en.wikipedia.org/wiki/"), snapshot="2024-01a")
    older = _site("wiki2024", "mediawiki", Mount("en.wikipedia.org/wiki/"), snapshot="2024-01")
    newer = _site("wiki2025", "mediawiki", Mount("en.wikipedia.org/wiki/"), snapshot="2025-01")
    undated = _site("wikiold", "mediawiki", Mount("en.wikipedia.org/wiki/"), snapshot=None)
    assert [
        t.library
        for t in WebMap([undated, older, rebuilt, newer]).resolve("https://en.wikipedia.org/wiki/X")
    ] == ["wiki2025", "rebuilt", "wiki2024", "wikiold"]
    webmap = WebMap([undated, older, newer])
    assert describe_overlap(webmap.overlaps()[0]) == (
        "web addresses: libraries wiki2024 (snapshot 2024-01) and wikiold (snapshot undated) "
        "both hold pages of en.wikipedia.org/wiki/: a link there leads to wiki2024 where it "
        "holds the page, else to wikiold"
    )
    assert set(webmap.overlaps()) == {
        Overlap("en.wikipedia.org/wiki/", "wiki2025", "wiki2024", "2025-01", "2024-01"),
        Overlap("en.wikipedia.org/wiki/", "wiki2025", "wikiold", "2025-01", None),
        Overlap("en.wikipedia.org/wiki/", "wiki2024", "wikiold", "2024-01", None),
    }


def test_sites_of_other_addresses_do_not_overlap() -> None:
    assert WebMap([WIKIPEDIA, DEVDOCS, UNIX]).overlaps() == ()
    # Where both hold pages, the one a link there tries first is named first: the
    # documentation's own prefix before the crawl of the whole host, however new.
    assert WebMap([DEVDOCS, CRAWL]).overlaps() == (
        Overlap("docs.python.org/3.13/", "python", "crawl", "2026-05", "2026-12"),
    )


def test_a_stack_exchange_answer_link() -> None:
    webmap = WebMap([UNIX])
    assert webmap.resolve("https://unix.stackexchange.com/questions/5/sed-x/1051#1051") == (
        WebTarget("unix", ("a/1051", "questions/5"), "1051", None),
    )
    assert webmap.resolve("https://unix.stackexchange.com/questions/tagged/sed") == ()


def test_a_route_of_the_page_list_leads_to_its_document() -> None:
    adapter = get_adapter("libretexts")
    routes = PageList(
        paths={"Bookshelves/Chem/01:_Matter": "content/page_content_7.json"},
        site="https://chem.libretexts.org",
    )
    site = library_site(
        "chem", adapter, Site(mounts=(Mount("chem.libretexts.org/"),)), routes, None
    )
    webmap = WebMap([site])
    assert webmap.resolve("https://chem.libretexts.org/Bookshelves/Chem/01%3A_Matter") == (
        WebTarget("chem", ("content/page_content_7.json",), None, None),
    )
    # A path the list lacks is no document of this family.
    assert webmap.resolve("https://chem.libretexts.org/Bookshelves/Other") == ()


def test_the_first_library_holding_a_path_wins() -> None:
    targets = WebMap([DEVDOCS, CRAWL]).resolve("https://docs.python.org/3/library/os.html")
    assert wanted_paths([targets]) == {
        "crawl": {
            "docs.python.org/3/library/os",
            "docs.python.org/3/library/os.html",
            "docs.python.org/3.11/library/os",
            "docs.python.org/3.11/library/os.html",
        },
        "python": {"library/os", "library/os.html"},
    }
    held = {"crawl": {"docs.python.org/3.11/library/os.html": True}, "python": {"library/os": True}}
    found = first_held(targets, held)
    assert found is not None
    assert (found[0].library, found[1], found[0].note) == (
        "crawl",
        "docs.python.org/3.11/library/os.html",
        "Python 3.11 here",
    )
    assert first_held(targets, {"python": {"library/os": True}}) == (targets[-1], "library/os")
    assert first_held(targets, {}) is None


@pytest.mark.parametrize(
    ("title", "held", "note"),
    [
        ("Python 3.11 documentation", "3.11", "Python 3.11 here"),
        ("Flask 2.2 Docs", "2.2.x", "Flask 2.2 here"),
        ("PostgreSQL Docs", "16", "PostgreSQL 16 here"),
        ("Django", "stable", "Django stable here"),
        ("", "3.11", "3.11 here"),
    ],
)
def test_version_notes(title: str, held: str, note: str) -> None:
    assert version_note(title, held) == note


# -- what each family says of its site --------------------------------------------------------


def test_each_family_says_where_its_pages_are() -> None:
    def mounts(
        adapter: str,
        name: str = "",
        source: str | None = None,
        sources: tuple[tuple[str, str], ...] = (),
        pages: PageList | None = None,
    ) -> tuple[Mount, ...]:
        facts = SiteFacts(
            name=name, title="T", source=source, sources=sources, pages=pages or PageList()
        )
        return get_adapter(adapter).web_site(facts).mounts

    assert mounts("mediawiki", source="en.wikipedia.org") == (Mount("en.wikipedia.org/wiki/"),)
    learnt = (("Ray_Charles", "https://en.m.wikipedia.org/wiki/Ray_Charles"),)
    assert mounts("mediawiki", sources=learnt) == (Mount("en.wikipedia.org/wiki/"),)
    assert mounts("stackexchange", name="unix.stackexchange.com_en_all") == (
        Mount("unix.stackexchange.com/"),
    )
    assert mounts("stackexchange", name="kiwix_legacy_qa") == ()
    assert mounts("ifixit", name="ifixit_fr_selection") == (Mount("fr.ifixit.com/"),)
    assert mounts("ifixit", name="repairs_en_all") == ()
    listed = PageList(site="https://chem.libretexts.org")
    assert mounts("libretexts", pages=listed) == (Mount("chem.libretexts.org/"),)
    assert mounts("libretexts") == ()
    # ted2zim records no talk's address: no page is read to learn one.
    assert not get_adapter("ted").site_samples
    assert mounts("ted") == ()


def test_the_page_lists_of_gutenberg_and_freecodecamp() -> None:
    gutenberg = get_adapter("gutenberg")
    books = gutenberg.parse_page_list(
        b'var json_data = [["Emma", "Jane Austen", "110", 158, "PR"], ["x"], 7];'
    )
    assert (books.paths, books.site) == ({"ebooks/158": "Emma.158"}, "https://www.gutenberg.org")
    assert gutenberg.parse_page_list(b"var json_data = [[oops];").paths == {}
    assert gutenberg.web_paths("files/158/158-h/158-h.htm") == ("ebooks/158",)
    assert gutenberg.web_paths("ebooks/search/?query=emma") == ()
    course = get_adapter("freecodecamp").parse_page_list(
        b'{"sb": {"block": [{"title": "Where do I Belong", "slug": "a24c"}]}}'
    )
    assert course.paths == {
        "learn/sb/block/where-do-i-belong": "content/curriculum/sb/block/a24c.md"
    }
    assert get_adapter("freecodecamp").parse_page_list(b"[1, 2]").paths == {}
