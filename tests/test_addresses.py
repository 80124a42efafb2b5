"""Web addresses as the sites use them (pure): what makes two spellings one page, where
an archive's pages are learnt to be, and the paths each family stores an address under."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from corpus_mcp.adapters import get_adapter
from corpus_mcp.adapters.base import folder_variants
from corpus_mcp.addresses import Mount, is_version, mount_of, parse_address, quick_host

# Path segments as sites write them: letters, digits and the punctuation titles use.
_SEGMENT = st.text(
    st.characters(categories=("L", "N"), include_characters="_-.,:()'é", exclude_characters="/"),
    min_size=1,
    max_size=12,
).filter(lambda segment: segment not in {".", ".."})
_PATHS = st.lists(_SEGMENT, min_size=0, max_size=5).map("/".join)
_HOSTS = st.sampled_from(["en.wikipedia.org", "docs.python.org", "unix.stackexchange.com"])


@pytest.mark.parametrize(
    "spelling",
    [
        "https://en.wikipedia.org/wiki/NTFS",
        "http://en.wikipedia.org/wiki/NTFS",
        "//en.wikipedia.org/wiki/NTFS",
        "https://EN.Wikipedia.org/wiki/NTFS",
        "https://en.m.wikipedia.org/wiki/NTFS",
        "https://en.wikipedia.org:443/wiki/NTFS",
        "https://user@en.wikipedia.org/wiki/NTFS",
        "https://en.wikipedia.org//wiki/./NTFS",
        "https://en.wikipedia.org/wiki/x/../NTFS",
        "https://en.wikipedia.org/wiki/%4ETFS",
        "https://en.wikipedia.org/wiki/NTFS?action=view",
    ],
)
def test_spellings_the_sites_ignore_are_one_address(spelling: str) -> None:
    address = parse_address(spelling)
    assert address is not None
    assert address.key == "en.wikipedia.org/wiki/NTFS"


def test_www_and_the_fragment() -> None:
    address = parse_address("https://www.gutenberg.org/ebooks/1342#Chapter%201")
    assert address is not None
    assert (address.host, address.path, address.fragment) == (
        "gutenberg.org",
        "ebooks/1342",
        "Chapter 1",
    )
    assert address.raw_host == "www.gutenberg.org"  # what a crawl stores its pages under


def test_a_folder_keeps_its_slash_and_the_root_is_empty() -> None:
    folder = parse_address("https://docs.python.org/3/tutorial/")
    root = parse_address("https://docs.python.org")
    assert folder is not None and root is not None
    assert folder.path == "3/tutorial/"
    assert (root.path, root.fragment) == ("", None)


@pytest.mark.parametrize(
    "url",
    [
        "mailto:someone@example.org",
        "ftp://example.org/file",
        "corpus://wikipedia/NTFS",
        "/wiki/NTFS",
        "https://",
        "https://[::1/x",
        "https://example.org/a%00b",
        "https://example.org/a#x%00y",
        "https://example.org/a\nb",
    ],
)
def test_what_is_no_web_address(url: str) -> None:
    assert parse_address(url) is None


@given(host=_HOSTS, path=_PATHS, secure=st.booleans(), www=st.booleans())
def test_percent_encoding_scheme_and_www_change_nothing(
    host: str, path: str, secure: bool, www: bool
) -> None:
    plain = parse_address(f"https://{host}/{path}")
    scheme = "https" if secure else "http"
    spelt = parse_address(f"{scheme}://{'www.' if www else ''}{host}/{quote(path)}")
    assert plain is not None and spelt is not None
    assert spelt.key == plain.key == f"{host}/{path}"


@given(st.text(max_size=40))
def test_the_quick_host_is_the_address_host(text: str) -> None:
    url = f"https://{text}"
    address = parse_address(url)
    if address is not None:
        assert quick_host(url) == address.host


@given(host=_HOSTS, path=_PATHS)
def test_normalising_twice_changes_nothing(host: str, path: str) -> None:
    once = parse_address(f"https://{host}/{path}")
    assert once is not None
    again = parse_address(f"https://{once.key}")
    assert again is not None
    assert again.key == once.key


@pytest.mark.parametrize("segment", ["3", "3.11", "3.11.2", "2.2.x", "v1.2", "stable", "Latest"])
def test_versions(segment: str) -> None:
    assert is_version(segment)


@pytest.mark.parametrize("segment", ["wiki", "library", "en", "questions", "1a", "3.11b"])
def test_not_versions(segment: str) -> None:
    assert not is_version(segment)


@pytest.mark.parametrize(
    ("path", "url", "mounts"),
    [
        # devdocs2zim: the attribution link of a page, and of the landing page.
        (
            "library/functions",
            "https://docs.python.org/3.13/library/functions.html",
            (Mount("docs.python.org/3.13/"),),
        ),
        ("index", "https://docs.python.org/3.13/", (Mount("docs.python.org/3.13/"),)),
        (
            "quickstart/index",
            "https://flask.palletsprojects.com/en/2.2.x/quickstart/",
            (Mount("flask.palletsprojects.com/en/2.2.x/"),),
        ),
        # mwoffliner: the canonical link.
        (
            "Ray_Charles",
            "https://en.wikipedia.org/wiki/Ray_Charles",
            (Mount("en.wikipedia.org/wiki/"),),
        ),
        (
            "Індыйская_кухня",
            "https://be.wikibooks.org/wiki/%D0%86%D0%BD%D0%B4%D1%8B%D0%B9%D1%81%D0%BA%D0%B0"
            "%D1%8F_%D0%BA%D1%83%D1%85%D0%BD%D1%8F",
            (Mount("be.wikibooks.org/wiki/"),),
        ),
        # warc2zim: the page is stored under its address; the version stays mounted.
        (
            "docs.python.org/3.11/tutorial/venv.html",
            "https://docs.python.org/3.11/tutorial/venv.html",
            (
                Mount("docs.python.org/3.11/", "docs.python.org/3.11/"),
                Mount("docs.python.org/", "docs.python.org/"),
            ),
        ),
        (
            "www.example.org/about/",
            "https://www.example.org/about/",
            (Mount("example.org/", "www.example.org/"),),
        ),
        # No common ending: nothing learnt.
        ("Device/Sony WH-1000XM3", "https://www.ifixit.com/Device/Sony_WH-1000XM3", ()),
        ("Emma.158", "https://www.gutenberg.org/ebooks/158", ()),
        ("x", "mailto:someone@example.org", ()),
    ],
)
def test_mounts_learnt_from_a_page(path: str, url: str, mounts: tuple[Mount, ...]) -> None:
    assert mount_of(path, url) == mounts


@given(
    host=_HOSTS,
    base=st.lists(st.sampled_from(["en", "docs", "3.11", "2.2.x"]), max_size=2).map(
        lambda parts: "".join(f"{part}/" for part in parts)
    ),
    page=st.lists(_SEGMENT, min_size=1, max_size=4).map("/".join),
)
def test_a_learnt_mount_leads_back_to_the_page(host: str, base: str, page: str) -> None:
    """Whatever the site's prefix, the mount learnt from a page's address holds that
    address, and its remainder is stored under the page's path."""
    [mount] = mount_of(page, f"https://{host}/{base}{page}.html")
    address = parse_address(f"https://{host}/{base}{page}.html")
    assert address is not None
    assert address.key.startswith(mount.address)
    rest = address.key[len(mount.address) :]
    assert mount.path + folder_variants(rest)[0] == page


@pytest.mark.parametrize(
    ("rest", "first"),
    [
        ("library/shutil.html", ("library/shutil", "library/shutil.html")),
        ("tutorial/", ("tutorial/index", "tutorial/index.html", "tutorial/", "tutorial")),
        ("", ("index", "index.html", "")),
        ("glossary", ("glossary", "glossary/index", "glossary.html", "glossary/")),
    ],
)
def test_folder_variants(rest: str, first: tuple[str, ...]) -> None:
    assert folder_variants(rest) == first


def test_a_wiki_title_as_mediawiki_reads_it() -> None:
    wiki = get_adapter("mediawiki")
    assert wiki.web_paths("Alternate data stream") == ("Alternate_data_stream",)
    assert wiki.web_paths("ntfs") == ("ntfs", "Ntfs")  # Wiktionary keeps the lower case
    assert wiki.web_paths("AC/DC") == ("AC/DC",)
    assert wiki.web_paths("") == ()


@pytest.mark.parametrize(
    ("rest", "paths"),
    [
        ("questions/5/how-do-i-x", ("questions/5", "questions/5/how-do-i-x")),
        ("questions/5", ("questions/5",)),
        ("q/5/120", ("questions/5", "questions/5/120")),
        ("questions/5/how-do-i-x/1051", ("a/1051", "questions/5")),
        ("a/1051", ("a/1051",)),
        ("a/1051/77", ("a/1051",)),
        ("questions/tagged/bash", ()),
        ("users/7/someone", ()),
        ("", ()),
    ],
)
def test_a_stack_exchange_address(rest: str, paths: tuple[str, ...]) -> None:
    assert get_adapter("stackexchange").web_paths(rest) == paths


def test_an_ifixit_address() -> None:
    ifixit = get_adapter("ifixit")
    assert ifixit.web_paths("Guide/Sony+WH-1000XM3+Ear+Pad+Replacement/142207") == (
        "Guide/-/142207",
    )
    assert ifixit.web_paths("Device/Sony_WH-1000XM3") == (
        "Device/Sony_WH-1000XM3",
        "Device/Sony WH-1000XM3",
    )
    assert ifixit.web_paths("Store/parts") == ()
