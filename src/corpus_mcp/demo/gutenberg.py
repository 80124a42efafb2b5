"""Demo Project Gutenberg archive: gutenberg2zim 3.0.1's layout, two Jane Austen novels.

Laid out as the real archive in ``../shared/zims/families`` is (its README): a book is
one page ``<Title>.<id>`` (not a front article, in the full-text index) of PG's HTML with
gutenberg2zim's icon-only infobox prepended, a CONTENTS list linking ``#chapNN`` and the
chapters as ``div.chapter > h2`` (Emma: ``h3`` under ``h2.volume``); ``<Title>_cover.<id>``
is the front article with the author, language, licence and format links; the author
page, ``Home`` and the bookshelves are skeletons a script fills from ``*.js`` JSON helpers,
each embedding its l10n JSON; EPUBs and cover images beside them. The text is the novels'
(``data/gutenberg.json``: the first and last sentences of each chapter; Emma's first two
and last chapters of each volume).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from urllib.parse import quote

import msgspec

from corpus_mcp.demo import _data
from corpus_mcp.zim.writer import Page, write_zim

FILE = "gutenberg/gutenberg_en_all_2026-12.zim"
MAIN_PATH = "Home"
METADATA = {
    "Title": "Project Gutenberg Library",
    "Description": "All books in English from the first producer of free Ebooks",
    "Language": "eng",
    "Name": "gutenberg_en_all",
    "Creator": "gutenberg.org",
    "Publisher": "openZIM",
    "Date": "2026-12-01",
    "Scraper": "gutenberg2zim-3.0.1",
    "Tags": "_category:gutenberg;gutenberg",
}


class Chapter(msgspec.Struct, frozen=True):
    heading: str
    paragraphs: list[str]


class Volume(msgspec.Struct, frozen=True):
    volume: str
    chapters: list[Chapter]


class Book(msgspec.Struct, frozen=True):
    id: int
    title: str
    creator: str
    """``DC.Creator`` as PG's catalogue writes it: ``Austen, Jane, 1775-1817``."""
    issued: str
    chapters: list[Chapter] = msgspec.field(default_factory=list)
    volumes: list[Volume] = msgspec.field(default_factory=list)

    @property
    def path(self) -> str:
        return f"{self.title}.{self.id}"

    @property
    def cover_path(self) -> str:
        return f"{self.title}_cover.{self.id}"


class Author(msgspec.Struct, frozen=True):
    name: str
    agent: int

    @property
    def path(self) -> str:
        return f"{self.name}.{self.agent}"


class Library(msgspec.Struct, frozen=True):
    books: list[Book]
    author: Author


LIBRARY = _data.load("gutenberg.json", Library)
BOOKS = tuple(LIBRARY.books)
AUTHOR = LIBRARY.author
# What every skeleton page embeds (the real one holds ~90 KB of these strings).
_L10N = json.dumps({"en": {"top-title": "Project Gutenberg Library", "author": "Author"}})


def chapter_id(number: int) -> str:
    """The anchor the book's CONTENTS links to: ``chap01`` ... ``chap61``."""
    return f"chap{number:02d}"


def _chapter(chapter: Chapter, number: int, tag: str) -> str:
    paragraphs = "".join(f"<p>{escape(p)}</p>\n" for p in chapter.paragraphs)
    anchor = f'<a href="" id="{chapter_id(number)}"></a>'
    heading = f"<{tag}>{anchor}{escape(chapter.heading)}</{tag}>"
    return f'<div class="chapter">\n{heading}\n{paragraphs}</div>\n'


def _toc_entry(anchor: str, text: str, kind: str = "toc") -> str:
    return f'<p class="{kind}"><a href="#{anchor}">{escape(text)}</a></p>'


def _book_page(book: Book) -> str:
    """PG's HTML as gutenberg2zim stores it: head metadata, the infobox, the cover, the
    title, the CONTENTS list and the chapters (in volumes where the book has them)."""
    toc: list[str] = []
    body: list[str] = []
    number = 0
    if book.volumes:
        for index, volume in enumerate(book.volumes, start=1):
            toc.append(_toc_entry(f"vol{index}", volume.volume, "toc vol"))
            body.append(
                f'<h2 class="volume"><a href="" id="vol{index}"></a>{escape(volume.volume)}</h2>\n'
            )
            for chapter in volume.chapters:
                number += 1
                toc.append(_toc_entry(chapter_id(number), chapter.heading))
                body.append(_chapter(chapter, number, "h3"))
    for chapter in book.chapters:
        number += 1
        toc.append(_toc_entry(chapter_id(number), chapter.heading))
        body.append(_chapter(chapter, number, "h2"))
    title, quoted = escape(book.title), quote(book.title)
    return f"""<html lang="en">
<head><meta content="text/html; charset=utf-8" http-equiv="Content-Type"/>
<title>{title}</title>
<style>.chapter {{ page-break-before: always; }}</style>
<meta content="{title}" name="DC.Title"/>
<meta content="en" name="DC.Language"/>
<meta content="{escape(book.creator)}" name="DC.Creator"/>
<meta content="{book.issued}" name="DCTERMS.issued"/>
<meta content="https://www.gutenberg.org/files/{book.id}/{book.id}-h/{book.id}-h.htm"
 name="DCTERMS.source"/>
</head>
<body><div>
<link href="fonts/font-awesome/css/font-awesome.css" rel="stylesheet"/>
<span class="zim_info">
<a href="./{quoted}_cover.{book.id}" title="{title}"><i class="fa fa-info-circle fa-2x"></i></a>
</span>
<span class="zim_epub">
<a href="{quoted}.{book.id}.epub" title="{title}: EPUB"><i class="fa fa-2x fa-download"></i></a>
</span>
<span class="zim_up" style="position: fixed; bottom: 1em; left: 1em;">
<a href="#"><i class="fa fa-2x fa-chevron-circle-up"></i></a>
</span>
</div>
<div class="figcenter">
<img alt="Cover: {title}" src="{book.id}_cover.jpg" width="500"/>
</div>
<h1>{escape(book.title.upper())}</h1>
<p class="center">By {escape(AUTHOR.name)}</p>
<div class="toc">
<h2>CONTENTS</h2>
{chr(10).join(toc)}
</div>
{"".join(body)}
</body>
</html>
"""


def _skeleton(title: str, body_class: str, content: str, script: str = "") -> str:
    """gutenberg2zim's own page: its skin, the l10n JSON, the header, the content."""
    return f"""<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<title>{escape(title)}</title>
<link rel="stylesheet" href="css/style.css" type="text/css" />
<script src="jquery/jquery-1.11.1.min.js" type="text/javascript"></script>
<script type="application/l10n">{_L10N}</script>
<script src="js/tools.js" type="text/javascript"></script>
</head>
<body class="pure-skin-gutenberg {body_class}">
<input type="hidden" id="page_record" name="page_record" />
<header>
<div class="main_title">
<h1><a href="./Home" data-l10n-id="top-title">Project Gutenberg Library</a></h1>
<h2><a href="./Home" data-l10n-id="sub-title">The first producer of free ebooks</a></h2>
</div>
<section class="filter-container">
<input type="text" name="author_filter" id="author_filter" placeholder="Author" />
<a class="nav-link" href="./Home" data-l10n-id="home_link"> Go Home</a>
</section>
</header>
<div id="content" class="content">
{content}
</div>
{script}
</body>
</html>
"""


def _cover_page(book: Book) -> str:
    title, quoted = escape(book.title), quote(book.title)
    content = f"""<h1>{title}</h1>
<div class="pure-g cover-content">
<div class="pure-u-1 pure-u-md-1-2 cover-image">
<img class="cover-art" src="./covers/{book.id}_cover_image.jpg" title="Book Cover"
 alt="Book Cover" />
</div>
<div class="pure-u-1 pure-u-md-1-2 bibrec sidedimg">
<div class="cover-detail author">
<p class="label" data-l10n-id="author">Author</p>
<p class="label-value author-btn"><a class="author-btn"
 data-author-name="{escape(AUTHOR.name)}">{escape(AUTHOR.name)}</a></p>
</div>
<div class="cover-detail language">
<p class="label" data-l10n-id="language">Language</p>
<p class="label-value"><span data-l10n-id="language-en">English</span></p>
</div>
<div class="cover-detail license">
<p class="label" data-l10n-id="license">License</p>
<p class="label-value" data-l10n-id="license-pd">Public domain in the USA.</p>
</div>
<div class="cover-detail popularity">
<p class="label" data-l10n-id="popularity">Popularity</p>
<p class="label-value"><i class="fa fa-heart-o"></i> <i class="fa fa-heart-o"></i></p>
</div>
<div class="cover-detail icons-footer">
<a title="{title}: EPUB" href="{quoted}.{book.id}.epub"><i class="fa fa-download fa-6x"></i></a>
<a title="{title}: HTML" href="{quoted}.{book.id}"><i class="fa fa-html5 fa-6x"></i></a>
</div>
</div>
</div>"""
    return _skeleton(f"{book.title} (cover)", "cover", content)


def _books_json(name: str) -> str:
    rows = [[b.title, AUTHOR.name, "110", b.id, "PR"] for b in BOOKS]
    return f"var {name} = {json.dumps(rows)};"


def _pages() -> list[Page]:
    table = '<table class="data-table display" id="books_table"></table>'
    author_script = (
        '<script type="text/javascript">\n'
        f'$( "#author_filter" ).val("{AUTHOR.name}");\nshowBooks();\n</script>'
    )
    pages = [
        Page(path=MAIN_PATH, title="Home", content=_skeleton("Home", "home", table), indexed=False),
        Page(
            path=AUTHOR.path,
            title=AUTHOR.name,
            content=_skeleton(AUTHOR.name, "cover", table, author_script),
            indexed=False,
        ),
        Page(
            path="lcc_shelf_PR",
            title="lcc_shelf_PR",
            content=_skeleton("lcc_shelf_PR", "home", f'<h1 class="table-title">PR</h1>{table}'),
            indexed=False,
        ),
    ]
    for book in BOOKS:
        pages += [
            Page(path=book.path, title=book.title, content=_book_page(book), front=False),
            Page(
                path=book.cover_path,
                title=book.title,
                content=_cover_page(book),
                indexed=False,
            ),
            Page(
                path=f"{book.path}.epub",
                title=f"{book.path}.epub",
                content=b"PK\x03\x04 demo epub",
                mimetype="application/epub+zip",
                front=False,
                indexed=False,
            ),
            Page(
                path=f"covers/{book.id}_cover_image.jpg",
                content=b"\xff\xd8\xff\xe0 demo jpeg",
                mimetype="image/jpeg",
                front=False,
                indexed=False,
            ),
        ]
    helpers = {
        "full_by_title.js": _books_json("json_data"),
        f"auth_{AUTHOR.agent}_by_title.js": _books_json("json_data"),
        "authors.js": f'var authors_json_data = [["{AUTHOR.name}", "{AUTHOR.agent}"]];',
    }
    pages += [
        Page(path=path, content=text, mimetype="text/javascript", front=False, indexed=False)
        for path, text in helpers.items()
    ]
    return pages


def build(path: Path) -> Path:
    """Write the demo Gutenberg archive at ``path``."""
    return write_zim(path, pages=_pages(), metadata=METADATA, main_path=MAIN_PATH)


__all__ = ["AUTHOR", "BOOKS", "FILE", "MAIN_PATH", "build", "chapter_id"]
