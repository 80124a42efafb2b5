"""Small archives of every scraper family, written with libzim's writer: each with the
metadata its scraper writes (../shared/zims/families/README.md, zim-formats.md) and the
entries that scraper lays out where recognition looks, so a clone without ../shared
tests recognition and ``init`` on every family. ``bare=True`` leaves the metadata out
(no Scraper, Tags or Name): the entries alone must tell the family."""

from __future__ import annotations

from pathlib import Path

import msgspec

from corpus_mcp.zim.writer import Page, write_zim


class FamilyArchive(msgspec.Struct, frozen=True, kw_only=True):
    file: str
    family: str
    metadata: dict[str, str]
    pages: tuple[Page, ...]
    main: str


def _html(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>"


def _page(path: str, title: str, body: str = "<p>Text.</p>") -> Page:
    return Page(path=path, title=title, content=_html(title, body))


def _asset(path: str, mimetype: str, content: str = "x") -> Page:
    return Page(path=path, content=content, mimetype=mimetype, front=False, indexed=False)


_WOMBAT = (
    _asset("_zim_static/wombat.js", "application/javascript", "/* replay */"),
    _asset("_zim_static/wombatSetup.js", "application/javascript", "/* setup */"),
)

ARCHIVES: tuple[FamilyArchive, ...] = (
    FamilyArchive(
        file="docs.python.org_en_all_2026-12.zim",
        family="warc2zim",
        metadata={
            "Name": "docs.python.org_en_all",
            "Title": "Python 3.11 documentation",
            "Scraper": "warc2zim 2.3.1,Wget/1.21.3 (linux-gnu)",
            "Tags": "_category:other;_ftindex:yes;python;documentation",
            "Creator": "Python Software Foundation",
        },
        pages=(
            *_WOMBAT,
            _page("docs.python.org/3.11/tutorial/venv.html", "12. Virtual Environments"),
        ),
        main="docs.python.org/3.11/tutorial/venv.html",
    ),
    FamilyArchive(
        file="wiki.archlinux.org_en_all_2026-11.zim",
        family="warc2zim",
        metadata={
            # A zimit crawl of a MediaWiki site: Wikimedia-like Name, warc2zim's Scraper.
            "Name": "wiki.archlinux.org_en_all",
            "Title": "ArchWiki",
            "Scraper": "warc2zim 2.1.3, zimit 2.1.8",
            "Tags": "_category:other;archlinux;wiki",
        },
        pages=(
            *_WOMBAT,
            _page(
                "wiki.archlinux.org/title/Installation_guide",
                "Installation guide",
                '<div id="mw-content-text"><p>Boot the live environment.</p></div>',
            ),
        ),
        main="wiki.archlinux.org/title/Installation_guide",
    ),
    FamilyArchive(
        file="wikihow_en_all_2026-10.zim",
        family="html",
        metadata={
            # wikihow2zim's Tags; no mwoffliner Scraper, so not an mwoffliner archive.
            "Name": "wikihow_en_all",
            "Title": "wikiHow",
            "Tags": "_category:wikihow;wikihow;_pictures:yes",
        },
        pages=(_page("How-to-Tie-a-Tie", "How to Tie a Tie"),),
        main="How-to-Tie-a-Tie",
    ),
    FamilyArchive(
        file="gutenberg_en_all_2026-12.zim",
        family="gutenberg2zim",
        metadata={
            "Name": "gutenberg_en_all",
            "Title": "Project Gutenberg Library",
            "Scraper": "gutenberg2zim-3.0.1",
            "Tags": "_category:gutenberg;gutenberg",
        },
        pages=(
            _page("Home", "Project Gutenberg Library"),
            _page("Persuasion_cover.105", "Persuasion"),
            _page("Persuasion.105", "Persuasion", '<div class="chapter"><h2>Chapter 1</h2></div>'),
            _asset("authors.js", "application/javascript", "var authors = [];"),
            _asset("covers/105_cover_image.jpg", "image/jpeg"),
        ),
        main="Home",
    ),
    FamilyArchive(
        file="freecodecamp_en_javascript_2026-12.zim",
        family="fcc2zim",
        metadata={
            "Name": "freecodecamp_en_javascript",
            "Title": "freeCodeCamp JavaScript",
            "Scraper": "fcc2zim v2.1.0",
            "Tags": "FCC;freeCodeCamp;_ftindex:yes",
        },
        pages=(
            _page("index.html", "freeCodeCamp"),
            Page(
                path="content/curriculum/js/basic-algorithm-scripting/56533eb9ac21ba0edf2244b3.md",
                content="# --description--\n\nConvert Celsius to Fahrenheit.\n",
                mimetype="text/markdown",
                front=False,
            ),
        ),
        main="index.html",
    ),
    FamilyArchive(
        file="libretexts.org_en_chem_2026-12.zim",
        family="mindtouch2zim",
        metadata={
            "Name": "libretexts.org_en_chem",
            "Title": "LibreTexts Chemistry",
            "Scraper": "mindtouch2zim v0.1.1",
            "Tags": "libretexts;chemistry",
        },
        pages=(
            _page("index.html", "LibreTexts"),
            _asset("content/shared.json", "application/json", '{"pages": []}'),
            _asset("content/page_content_402100.json", "application/json", '{"htmlBody": ""}'),
        ),
        main="index.html",
    ),
    FamilyArchive(
        file="ifixit_en_selection_2026-12.zim",
        family="ifixit2zim",
        metadata={
            # ifixit2zim writes no Scraper.
            "Name": "ifixit_en_selection",
            "Title": "iFixit in English",
            "Tags": "_category:iFixit;_videos:yes;_pictures:yes;iFixit",
        },
        pages=(
            _page("home/home", "iFixit"),
            _page("Guide/-/142207", "Sony WH-1000XM3 Ear Pads Replacement"),
            _page("Device/Sony WH-1000XM3", "Sony WH-1000XM3"),
        ),
        main="home/home",
    ),
    FamilyArchive(
        file="ted_en_science_2026-12.zim",
        family="ted2zim",
        metadata={
            "Name": "ted_en_science",
            "Title": "TED talks - Science",
            "Scraper": "ted2zim 3.2.1",
            "Tags": "ted;science;_category:ted;ted;_videos:yes;_ftindex:yes",
        },
        pages=(
            _page("index", "TED talks - Science"),
            _page("why-bees-dance", "Why bees dance"),
            _asset(
                "videos/98765/subs/subs_en.vtt",
                "text/vtt",
                "WEBVTT\n\n00:00.000 --> 00:02.000\nBees",
            ),
            _asset("videos/98765/video.mp4", "video/mp4"),
        ),
        main="index",
    ),
    FamilyArchive(
        file="notes.zim",
        family="html",
        metadata={"Title": "Field notes"},
        pages=(_page("index.html", "Field notes"),),
        main="index.html",
    ),
)


def write_family_archive(folder: Path, archive: FamilyArchive, *, bare: bool = False) -> Path:
    """``archive`` written in ``folder`` (without its metadata when ``bare``)."""
    return write_zim(
        folder / archive.file,
        pages=archive.pages,
        metadata={} if bare else archive.metadata,
        main_path=archive.main,
        fulltext_index=False,
    )


def write_family_archives(folder: Path) -> dict[str, Path]:
    """Every archive above in ``folder``, by file name."""
    return {archive.file: write_family_archive(folder, archive) for archive in ARCHIVES}
