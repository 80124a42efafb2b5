"""The demo/fixture archives, read back through the ZIM service (``ZimReader``).

These archives stand in for real scraper output in every later test, so this file pins
down that they carry what zim-formats.md says the scrapers write: metadata, paths,
redirects and stubs, index presence, page skeletons and main paths.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

import lxml.html
import pytest

from corpus_mcp.adapters import get_adapter
from corpus_mcp.demo import DEMO_LIBRARIES, mdwiki, sotoki
from corpus_mcp.demo._sotoki import Site, Thread
from corpus_mcp.demo.synthetic import (
    build_large_stackexchange,
    build_large_wikipedia,
    build_million_entries,
)
from corpus_mcp.zim import ZimReader

ROOT = Path(__file__).resolve().parents[1]
MRO_THREAD = "questions/3277367/how-does-python-s-super-work-with-multiple-inheritance"


@pytest.fixture(scope="module")
def readers(demo_corpus: Path) -> Iterator[dict[str, ZimReader]]:
    yield {name: ZimReader(demo_corpus.parent / rel) for name, rel, _ in DEMO_LIBRARIES}


def _html(reader: ZimReader, path: str) -> lxml.html.HtmlElement:
    return lxml.html.fromstring(reader.content(path))


# -- manifest and metadata ------------------------------------------------------------


def test_manifest_lists_every_archive(demo_corpus: Path) -> None:
    manifest = tomllib.loads(demo_corpus.read_text(encoding="utf-8"))
    assert manifest["version"] == 1
    listed = [(t["name"], t["path"], t["adapter"]) for t in manifest["library"]]
    assert listed == list(DEMO_LIBRARIES)
    for _, rel, _ in DEMO_LIBRARIES:
        assert (demo_corpus.parent / rel).is_file()


#: name -> (family, snapshot, Scraper, main path, has a full-text index)
EXPECTED_INFO: dict[str, tuple[str, str, str, str, bool]] = {
    "Wikipedia": ("mwoffliner", "2026-05", "mwoffliner 1.17.5", "index", True),
    "MDWiki": ("mwoffliner", "2025-11", "mwoffliner 1.17.5", "App/IntroPage", False),
    "Python-Docs": ("devdocs2zim", "2026-05", "devdocs2zim v0.2.1", "index", True),
    "Cpp-Docs": ("devdocs2zim", "2026-04", "devdocs2zim v0.2.1", "index", True),
    "PostgreSQL-Docs": ("devdocs2zim", "2026-04", "devdocs2zim v0.2.1", "index", True),
    "StackOverflow": ("sotoki", "2026-05", "sotoki v3.1.1", "questions", True),
    "Math-SE": ("sotoki", "2026-03", "sotoki v3.1.1", "questions", True),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_INFO))
def test_archive_info(readers: dict[str, ZimReader], name: str) -> None:
    family, snapshot, scraper, main_path, fulltext = EXPECTED_INFO[name]
    info = readers[name].info
    assert info.family == family
    assert info.snapshot == snapshot
    assert info.scraper == scraper
    assert info.main_path == main_path
    assert info.has_fulltext_index is fulltext
    assert info.has_title_index
    assert info.new_namespace_scheme
    assert info.language == "eng"
    assert readers[name].metadata("Date") is not None
    assert len(readers[name].metadata("Date") or "") == 10
    assert readers[name].check()


def test_family_metadata_values(readers: dict[str, ZimReader]) -> None:
    wiki = readers["Wikipedia"]
    assert (wiki.info.name, wiki.info.flavour) == ("wikipedia_en_demo", "maxi")
    assert wiki.metadata("Source") == "en.wikipedia.org"
    assert "_category:wikipedia" in wiki.info.tags
    md = readers["MDWiki"]
    assert (md.info.title, md.metadata("Publisher")) == (
        "MDWiki Medical Encyclopedia",
        "WikiProjectMed",
    )
    assert "mdwiki" in md.info.tags
    py = readers["Python-Docs"]
    assert py.info.name == "devdocs_en_python"
    assert py.info.tags == ("devdocs", "python")
    assert py.info.flavour is None
    so = readers["StackOverflow"]
    assert so.info.title == "Stack Overflow"
    assert so.metadata("License") == "CC-BY-SA"
    assert "_category:stack_exchange" in so.info.tags


# -- mwoffliner -----------------------------------------------------------------------


def test_wikipedia_plain_redirects_and_chain(readers: dict[str, ZimReader]) -> None:
    wiki = readers["Wikipedia"]
    resolved = wiki.resolve("Method_resolution_order")
    assert (resolved.path, resolved.redirected_from) == (
        "C3_linearization",
        "Method_resolution_order",
    )
    assert resolved.title == "C3 linearization"
    chained = wiki.resolve("Python_(language)")
    assert chained.path == "Python_(programming_language)"
    assert wiki.resolve("Diabetes_mellitus").path == "Diabetes"


def test_wikipedia_fragment_redirect_stub(readers: dict[str, ZimReader]) -> None:
    wiki = readers["Wikipedia"]
    stub = wiki.resolve("Diamond_problem")
    assert stub.redirected_from is None  # a real item, not a libzim redirect
    assert (stub.mimetype, stub.title) == ("text/html", "Diamond problem")
    assert stub.size < 400
    doc = _html(wiki, "Diamond_problem")
    refresh = doc.xpath("//meta[@http-equiv='refresh']/@content")
    assert refresh == ["0;URL='./Multiple_inheritance#The_diamond_problem'"]
    assert not doc.xpath("//*[@id='mw-content-text']")
    assert "Multiple_inheritance" in wiki.fulltext("diamond problem", 20).paths


def test_wikipedia_suggestions_include_redirect_titles(readers: dict[str, ZimReader]) -> None:
    wiki = readers["Wikipedia"]
    titles = {s.title for s in wiki.suggest("method resolution", 10)}
    assert "Method resolution order" in titles
    assert "High blood pressure" in {s.title for s in wiki.suggest("high blood", 10)}
    assert "Main Page" not in {s.title for s in wiki.suggest("main page", 10)}


PYTHON_ARTICLE = "Python_(programming_language)"
ARTICLE_BODY = "//div[@id='mw-content-text']/div[contains(@class,'mw-parser-output')]"


@pytest.mark.parametrize(
    ("part", "xpath"),
    [
        ("a level-4 heading with its id", ".//div[contains(@class,'mw-heading')]/h4[@id]"),
        ("the Python_3 heading", ".//h3[@id='Python_3']"),
        ("TemplateStyles", "./style[@data-mw-deduplicate]"),
        ("a hatnote", "./div[contains(@class,'hatnote')]"),
        ("an infobox", "./table[contains(@class,'infobox')]"),
        ("a citation marker", ".//sup[contains(@class,'reference')]/a[@href='#cite_note-ref1-1']"),
        ("its reference", ".//ol[@class='references']/li[@id='cite_note-ref1-1']"),
        ("a navbox", ".//div[@role='navigation'][contains(@class,'navbox')]"),
        ("a SyntaxHighlight block", ".//div[contains(@class,'mw-highlight-lang-python')]/pre"),
        ("a link to a section of the page", ".//a[@href='#Syntax_and_semantics']"),
        (
            "a See also list of internal links",
            ".//div[h2[@id='See_also']]/following-sibling::*[1][self::ul]/li/a[starts-with(@href,'./')]",
        ),
        ("an external link", ".//a[@class='external text'][@href='https://www.python.org/']"),
    ],
)
def test_wikipedia_article_body_has(readers: dict[str, ZimReader], part: str, xpath: str) -> None:
    body = _html(readers["Wikipedia"], PYTHON_ARTICLE).xpath(ARTICLE_BODY)[0]
    assert body.xpath(xpath), part


def test_wikipedia_article_layout_is_flat_action_parse(readers: dict[str, ZimReader]) -> None:
    body = _html(readers["Wikipedia"], PYTHON_ARTICLE).xpath(ARTICLE_BODY)[0]
    assert not body.xpath(".//section")
    levels = {h.tag for h in body.xpath(".//div[contains(@class,'mw-heading')]/*[@id]")}
    assert levels == {"h2", "h3", "h4"}


def test_wikipedia_title_and_footer_are_mwofflines(readers: dict[str, ZimReader]) -> None:
    doc = _html(readers["Wikipedia"], PYTHON_ARTICLE)
    title = doc.xpath("//h1[@id='firstHeading']/span[@class='mw-page-title-main']/text()")
    assert title == ["Python (programming language)"]
    assert doc.xpath("//head/link[@rel='canonical']/@href") == [
        "https://en.wikipedia.org/wiki/Python_(programming_language)"
    ]
    raw = readers["Wikipedia"].content(PYTHON_ARTICLE).decode()
    assert '<!--htdig_noindex--><div><div class="zim-footer">' in raw


def test_wikipedia_section_hatnote_and_links_from_a_nested_path(
    readers: dict[str, ZimReader],
) -> None:
    body = _html(readers["Wikipedia"], "Asynchronous_I/O").xpath(ARTICLE_BODY)[0]
    [hatnote] = body.xpath(".//div[contains(@class,'hatnote')]")
    assert " ".join(hatnote.text_content().split()) == "Main article: Thread (computing)"
    assert hatnote.getprevious().xpath("./h2/@id") == ["Compared_with_threads"]
    # The page's path has a slash, so mwoffliner's relative links climb out of it.
    assert "../Thread_(computing)" in body.xpath(".//p//a/@href")


def test_wikipedia_math_keeps_its_tex(readers: dict[str, ZimReader]) -> None:
    math_doc = _html(readers["Wikipedia"], "Euler's_identity")
    tex = math_doc.xpath("//annotation[@encoding='application/x-tex']/text()")
    assert "{\\displaystyle e^{i\\pi }+1=0}" in tex


def test_wikipedia_footer_is_not_indexed(readers: dict[str, ZimReader]) -> None:
    wiki = readers["Wikipedia"]
    assert wiki.fulltext("Sharealike", 5).estimated_total == 0
    assert wiki.fulltext("chlorophyll", 5).paths[0] == "Photosynthesis"


def test_wikipedia_generated_list_main_page(readers: dict[str, ZimReader]) -> None:
    wiki = readers["Wikipedia"]
    doc = _html(wiki, "index")
    assert "page-list-home" in doc.xpath("//body/@class")[0]
    links = doc.xpath("//ul[@id='list']/li/a/@href")
    assert "./Ray_Charles" in links
    assert wiki.resolve("index").title == "Main Page"


def test_mdwiki_has_no_fulltext_and_mixes_layouts(readers: dict[str, ZimReader]) -> None:
    md = readers["MDWiki"]
    assert md.fulltext("insulin", 10).paths == []
    assert md.resolve("Albuterol").path == "Salbutamol"
    assert "Albuterol" in {s.title for s in md.suggest("albuterol", 5)}
    parsoid = _html(md, "Hypertension").xpath("//section[@data-mw-section-id]")
    assert parsoid[0].get("data-mw-section-id") == "0"
    assert any(s.get("data-mw-section-id") == "-1" for s in parsoid)
    assert not _html(md, "Diabetes_mellitus").xpath("//section")
    intro = _html(md, mdwiki.MAIN_PATH)
    assert "../Diabetes_mellitus" in intro.xpath("//a/@href")


# -- devdocs2zim ----------------------------------------------------------------------


def test_devdocs_titles_paths_and_skeleton(readers: dict[str, ZimReader]) -> None:
    py = readers["Python-Docs"]
    assert py.resolve("index").title == "Python Documentation"
    functions = py.resolve("library/functions")
    assert (functions.title, functions.redirected_from) == ("Functions", None)
    doc = _html(py, "library/functions")
    assert doc.xpath("//devdocs-navbar[@listing-src='../navbar.json']")
    page = doc.xpath("//main[@class='_content']/div[@class='_page _python']")[0]
    assert page.xpath("./h1/text()") == ["Built-in Functions"]
    assert page.xpath(".//dl[contains(@class,'py')]/dt[@id='super']")
    assert page.xpath(".//pre[@data-language='python']")
    assert page.xpath("./div[@class='_attribution']//a[@class='_attribution-link']/@href") == [
        "https://docs.python.org/3.13/library/functions.html"
    ]
    classes = _html(py, "tutorial/classes")
    assert classes.xpath("//div[@class='_page _python']/ul/li/a[@href='#inheritance']")
    assert classes.xpath("//section[@id='inheritance']/section[@id='multiple-inheritance']/h3")
    cpp = readers["Cpp-Docs"]
    assert cpp.resolve("cpp/string/basic_string/stol").title == "std::stoll"
    assert _html(cpp, "cpp/container/vector").xpath("//h2[@id='Member_functions']")


def test_devdocs_navbar_licenses_and_index(readers: dict[str, ZimReader]) -> None:
    py = readers["Python-Docs"]
    navbar = json.loads(py.content("navbar.json"))
    assert (navbar["landingHref"], navbar["licenseHref"]) == ("index", "licenses.txt")
    hrefs = {e["href"] for group in navbar["children"] for e in group["children"]}
    assert {"library/functions#super", "library/stdtypes#str.join", "library/functions"} <= hrefs
    assert py.resolve("licenses.txt").mimetype == "text/plain"
    assert "licenses.txt" in {s.path for s in py.suggest("licenses", 5)}
    assert "library/functions" in py.fulltext("cooperative multiple inheritance", 5).paths
    assert py.fulltext("navbar", 5).estimated_total == 0  # navbar and assets not indexed
    assert py.fulltext("Python Software Foundation", 50).estimated_total >= 25  # attribution is


DEVDOCS_LIBRARIES = ("Python-Docs", "Cpp-Docs", "PostgreSQL-Docs")


@pytest.mark.parametrize("library", DEVDOCS_LIBRARIES)
def test_devdocs_navbar_fragments_all_resolve(readers: dict[str, ZimReader], library: str) -> None:
    reader = readers[library]
    navbar = json.loads(reader.content("navbar.json"))
    hrefs = [e["href"] for group in navbar["children"] for e in group["children"]]
    for href in hrefs:
        path, _, fragment = href.partition("#")
        assert reader.resolve(path).redirected_from is None, href
        if fragment:
            assert _html(reader, path).xpath(f"//*[@id='{fragment}']"), href
    names = [group["name"] for group in navbar["children"]]
    assert names == sorted(names, key=str.casefold)  # DevDocs' order


@pytest.mark.parametrize(
    ("library", "path", "shape", "xpath"),
    [
        ("Python-Docs", "library/threading", "a class entry with nested methods",
         "//dl[contains(@class,'class')]/dd/dl[contains(@class,'method')]/dt[@id]"),
        ("Python-Docs", "library/asyncio-task", "an entry whose dd is empty, prose after",
         "//dl/dt[@id='asyncio.gather']/following-sibling::dd[not(node())]"),
        ("Python-Docs", "library/functools", "a heading naming its single entry",
         "//section[h2='cache()']/dl/dt[@id='functools.cache']"),
        ("Python-Docs", "reference/datamodel", "consecutive dts sharing one dd",
         "//dt[@id='object.__lt__']/following-sibling::*[1][self::dt][@id='object.__le__']"),
        ("PostgreSQL-Docs", "runtime-config-resource", "a DocBook variable list",
         "//div[@class='variablelist']/dl[@class='variablelist']/dt[@id='GUC-WORK-MEM']"),
        ("Python-Docs", "library/functions", "a link to another page, with an anchor",
         "//a[@href='../tutorial/classes#multiple-inheritance']"),
        ("Python-Docs", "library/functions", "an in-page link", "//a[@href='#zip']"),
        ("Python-Docs", "library/asyncio-task", "a link to a page of the same folder",
         "//a[@href='asyncio#asyncio.run']"),
        ("Python-Docs", "library/threading", "an absolute link to a page DevDocs skipped",
         "//a[starts-with(@href, 'https://docs.python.org/3.13/c-api/')]"),
        ("Cpp-Docs", "cpp/container/list", "a link to a page in another folder",
         "//a[@href='../string/basic_string/stol']"),
        ("Python-Docs", "library/functions", "a table of one empty header row",
         "//table[not(.//td)][thead/tr/th[not(node())]]"),
        ("Python-Docs", "library/stdtypes", "a table whose cells are all empty",
         "//table[.//td][not(normalize-space(.))]"),
    ],
)  # fmt: skip
def test_devdocs_pages_hold_the_shapes_of_real_output(
    readers: dict[str, ZimReader], library: str, path: str, shape: str, xpath: str
) -> None:
    page = _html(readers[library], path).xpath("//div[contains(@class,'_page')]")[0]
    assert page.xpath(f".{xpath}"), shape


def test_devdocs_long_signatures_and_untitled_pages(readers: dict[str, ZimReader]) -> None:
    signature = _html(readers["Python-Docs"], "library/subprocess").xpath(
        "//dt[@id='subprocess.run']"
    )[0]
    assert len(" ".join(signature.text_content().split())) > 100
    pg = readers["PostgreSQL-Docs"]
    # No index entry opens a settings page: devdocs2zim titles it after its first entry.
    assert pg.resolve("runtime-config-resource").title == "Config: maintenance_work_mem"
    assert _html(pg, "runtime-config-resource").xpath("//h1/text()") == [
        "19.4. Resource Consumption"
    ]


# -- sotoki ---------------------------------------------------------------------------


def test_sotoki_redirects_resolve_to_thread(readers: dict[str, ZimReader]) -> None:
    so = readers["StackOverflow"]
    assert so.resolve("questions/3277367").path == MRO_THREAD
    for aid in sotoki.SO_THREADS[0].answer_ids():
        assert so.resolve(f"a/{aid}").path == MRO_THREAD
    assert so.resolve("questions_page=1").path == "questions"
    suggested = {s.path for s in so.suggest("super multiple inheritance", 10)}
    assert MRO_THREAD in suggested
    assert not {p for p in suggested if p.startswith(("a/", "questions/3277367"))} - {MRO_THREAD}


def test_sotoki_answer_ids_are_unique() -> None:
    for threads in (sotoki.SO_THREADS, sotoki.MATH_THREADS):
        ids = [aid for t in threads for aid in t.answer_ids()]
        assert len(ids) == len(set(ids))


def test_sotoki_thread_skeleton(readers: dict[str, ZimReader]) -> None:
    doc = _html(readers["StackOverflow"], MRO_THREAD)
    assert doc.xpath("//title/text()") == [
        "How does Python's super() work with multiple inheritance? - Stack Overflow"
    ]
    question = doc.xpath("//div[@id='question']")[0]
    assert question.get("data-score") == "1089"
    assert question.xpath(".//a[contains(@class,'post-tag')]/text()")[:2] == [
        "python",
        "inheritance",
    ]
    assert doc.xpath("//time[@itemprop='dateCreated']/@datetime") == ["2010-07-18T21:40:24.157"]
    answers = doc.xpath("//div[@id='answers']/div[contains(@class,'answer')]")
    scores = [int(a.get("data-score")) for a in answers]
    assert scores == sorted(scores, reverse=True)
    accepted = [a for a in answers if "accepted-answer" in a.get("class")]
    assert len(accepted) == 1 and answers.index(accepted[0]) == 1
    assert accepted[0].xpath(".//div[contains(@class,'js-accepted-answer-indicator')]")
    assert accepted[0].get("itemprop") == "acceptedAnswer"
    for answer in answers:  # sotoki's anchor for #<aid> links sits right before each answer
        anchor = answer.getprevious()
        assert (anchor.tag, anchor.get("name")) == ("a", answer.get("data-answerid"))


def test_sotoki_3_1_1_quirks(readers: dict[str, ZimReader]) -> None:
    """What sotoki 3.1.1 writes in every thread (../shared/zims/real/README.md)."""
    doc = _html(readers["StackOverflow"], MRO_THREAD)
    [header] = doc.xpath("//div[@id='answers-header']//h2")
    assert header.get("data-answercount") == "9"  # a constant of the template
    assert header.text == "3 Answers"
    assert header.xpath("./span[@itemprop='answerCount']/text()") == ["3"]
    assert doc.xpath("//header[@class='site-header']//img/@src") == [
        f"../../{sotoki.STACKOVERFLOW.logo}"
    ]
    assert readers["StackOverflow"].resolve(sotoki.STACKOVERFLOW.logo).mimetype == "image/webp"
    assert doc.xpath("//div[@id='left-sidebar']//a[@id='nav-questions']/@href") == [
        "../../questions"
    ]
    viewed = doc.xpath("//div[starts-with(@title, 'Viewed ')]")[0]
    assert viewed.get("title") == "Viewed 912,345 times"
    assert " ".join(viewed.text_content().split()) == "Viewed 9.1e+01k times"  # sic
    assert doc.xpath("//time[@datetime='2012-03-02T10:15:00.000']/@class") == ["fromnow"]


BLOCKING_THREAD = 43241221


def _thread(site: Site, qid: int) -> Thread:
    return next(t for t in site.threads if t.qid == qid)


def test_sotoki_user_cards(readers: dict[str, ZimReader]) -> None:
    mro = _html(readers["StackOverflow"], MRO_THREAD)
    question = mro.xpath("//div[@id='question']")[0]
    editor, owner = question.xpath(".//div[contains(@class,'post-signature')]")
    # The owner edited their own question: the older "edited" line with an ISO title.
    assert editor.xpath(".//div[@class='user-action-time']/span[@class='relativetime']/@title") == [
        "2012-03-02T10:15:00.000"
    ]
    assert "owner" in owner.get("class").split()
    assert owner.xpath(".//time[@class='s-user-card--time']/@datetime") == [
        "asked Jul 18 '10 at 21:40"
    ]
    threads = _html(readers["StackOverflow"], _thread(sotoki.STACKOVERFLOW, 27435284).path)
    accepted = threads.xpath("//div[contains(@class,'accepted-answer')]")[0]
    stamps = accepted.xpath(".//time[@class='s-user-card--time']/@datetime")
    assert stamps == ["edited Nov 20 '19 at 08:05", "answered Dec 11 '14 at 10:02"]
    editor_card, owner_card = accepted.xpath(".//div[contains(@class,'post-signature')]")
    assert editor_card.xpath(".//a[@class='s-user-card--link']/text()") == ["Ada Lindqvist"]
    assert "owner" not in owner_card.get("class").split()  # not the asker's


def test_sotoki_post_links_carry_the_3_1_1_port_bug(readers: dict[str, ZimReader]) -> None:
    thread = _thread(sotoki.STACKOVERFLOW, BLOCKING_THREAD)
    doc = _html(readers["StackOverflow"], thread.path)
    accepted = doc.xpath("//div[contains(@class,'accepted-answer')]")[0]
    body = accepted.xpath(".//div[contains(@class,'js-post-body')]")[0]
    other = thread.answer_ids()[0]
    gil = _thread(sotoki.STACKOVERFLOW, 1294382)
    assert body.xpath(".//a/@href") == [
        f"//:None/../../a/{other}#{other}",
        f"//:None/../../{_thread(sotoki.STACKOVERFLOW, 27435284).path}",
        f"//:None/../../{gil.path}#{gil.answer_ids()[0]}",
        "https://docs.python.org/3/library/asyncio-eventloop.html#asyncio.loop.run_in_executor",
        "//:None/../../users/102/ravi-menon",
        "//:None/../../questions/tagged/python-asyncio",
    ]
    assert body.xpath(".//a[@class='external-link']/@href") == [
        "https://docs.python.org/3/library/asyncio-eventloop.html#asyncio.loop.run_in_executor"
    ]
    assert [h.tag for h in body.xpath("./h2 | ./h3")] == ["h2", "h3"]
    for aid in thread.answer_ids():
        assert readers["StackOverflow"].resolve(f"a/{aid}").path == thread.path


def test_sotoki_comments_markup(readers: dict[str, ZimReader]) -> None:
    thread = _thread(sotoki.STACKOVERFLOW, BLOCKING_THREAD)
    doc = _html(readers["StackOverflow"], thread.path)
    aid = thread.answer_ids()[1]
    block = doc.xpath(f"//div[@id='comments-{aid}']")[0]
    first, second = block.xpath(".//li[contains(@class,'comment')]")
    assert first.xpath(".//span[@class='comment-copy']/a/@href") == [
        f"//:None/../../{_thread(sotoki.STACKOVERFLOW, 1294382).path}"
    ]
    assert second.xpath(".//span[@class='comment-copy']/a[@class='external-link']/@href") == [
        "https://peps.python.org/pep-3156/"
    ]
    assert first.xpath(".//a[@name]/@name") == [f"comment{first.get('data-comment-id')}_{aid}"]
    assert first.xpath(".//a[contains(@class,'comment-user')]/text()") == ["Ravi Menon"]
    assert second.xpath(".//a[contains(@class,'comment-user')]/@class") == ["comment-user owner"]
    assert first.xpath(".//span[@class='relativetime-clean']/@title") == [
        "2017-04-06T07:12:00.000 License: CC BY-SA 3.0"
    ]
    # Posts without comments have no comments block at all.
    question = doc.xpath("//div[@id='question']")[0]
    assert not question.xpath(".//div[starts-with(@id, 'comments-')]")


def test_sotoki_linked_sidebar_and_duplicate(readers: dict[str, ZimReader]) -> None:
    so = readers["StackOverflow"]
    thread = _thread(sotoki.STACKOVERFLOW, BLOCKING_THREAD)
    linked = _html(so, thread.path).xpath(
        "//div[@id='sidebar']//div[contains(@class,'sidebar-linked')]//a[@class='question-hyperlink']"
    )
    assert [a.get("href") for a in linked] == [
        f"../../{_thread(sotoki.STACKOVERFLOW, qid).path}" for qid in (27435284, 1294382)
    ]
    assert not _html(so, _thread(sotoki.STACKOVERFLOW, 2209224).path).xpath("//div[@id='sidebar']")
    # A question closed as a duplicate: no notice, no link; only the comment says so.
    duplicate = _html(so, _thread(sotoki.STACKOVERFLOW, 26853).path)
    original = _thread(sotoki.STACKOVERFLOW, 38987).path
    assert duplicate.xpath("//a/@href[contains(., 'questions/38987/')]") == [
        f"//:None/../../{original}"
    ]
    assert duplicate.xpath("//span[@class='comment-copy']/a/@href") == [f"//:None/../../{original}"]


def test_sotoki_entries_are_what_3_1_1_writes(readers: dict[str, ZimReader]) -> None:
    so = readers["StackOverflow"]
    paths = {path for path, _title, _redirect in so.iter_entries()}
    assert {"static/css/primary.css", "static/css/secondary.css", "favicon.ico"} <= paths
    assert not {p for p in paths if p.startswith("static/js/")}  # the wheel ships no assets
    assert so.resolve("").path == "questions"
    assert so.resolve("questions/tagged/python_page=1").path == "questions/tagged/python"
    assert so.resolve("users_page=1").path == "users"


def test_math_keeps_raw_tex_and_mathjax(readers: dict[str, ZimReader]) -> None:
    math = readers["Math-SE"]
    raw = math.content("questions/3510").decode()
    assert "$e^{i\\pi}+1=0$" in raw
    assert "$$e^z=\\sum_{n=0}^{\\infty}\\frac{z^n}{n!}.$$" in raw
    assert 'type="text/x-mathjax-config"' in raw
    assert "\\(y'/y=\\ln x+1\\)" in math.content("questions/1212").decode()
    assert math.fulltext("euler identity", 10).estimated_total > 0
    so_raw = readers["StackOverflow"].content("questions/14182879").decode()
    assert "$e^{i\\pi}+1=0$" in so_raw
    assert "x-mathjax-config" not in so_raw


# -- cross-family relevance cases ---------------------------------------------------


def _section_ids(reader: ZimReader, path: str) -> set[str]:
    doc = _html(reader, path)
    ids = set(
        doc.xpath(
            "//*[self::h1 or self::h2 or self::h3 or self::h4 or self::section or self::dt]/@id"
        )
    )
    answers = doc.xpath("//div[contains(@class,'answer')]")
    ids |= {a.get("id") for a in answers if a.get("id")}
    if any("accepted-answer" in (a.get("class") or "") for a in answers):
        ids.add("accepted-answer")
    return ids


def test_relevance_cases_point_at_real_documents(readers: dict[str, ZimReader]) -> None:
    cases = tomllib.loads((ROOT / "tests" / "relevance_cases.toml").read_text())["case"]
    assert len(cases) >= 30
    kinds = {c["kind"] for c in cases}
    assert kinds == {"exact_title", "redirect_title", "natural_language", "family_specific"}
    for case in cases:
        reader = readers[case["library"]]
        resolved = reader.resolve(case["path"])
        assert resolved.path == case["path"] and resolved.redirected_from is None, case
        if case["kind"] == "exact_title":
            assert resolved.title == case["query"], case
        if case["kind"] == "redirect_title":
            source = case["query"].replace(" ", "_")
            if "section" in case:
                raw = reader.content(source).decode()
                assert f"#{case['section']}'" in raw, case
            else:
                assert reader.resolve(source).path == case["path"], case
        if "section" in case:
            assert case["section"] in _section_ids(reader, case["path"]), case


# -- building -------------------------------------------------------------------------


def test_large_synthetic_builders_at_small_size(tmp_path: Path) -> None:
    wiki_path = build_large_wikipedia(tmp_path / "w.zim", articles=120, seed=3)
    again = build_large_wikipedia(tmp_path / "w2.zim", articles=120, seed=3)
    wiki, twin = ZimReader(wiki_path), ZimReader(again)
    assert wiki.info.family == "mwoffliner"
    assert wiki.info.article_count >= 120
    assert wiki.info.entry_count == twin.info.entry_count
    first = _html(wiki, "index").xpath("//ul[@id='list']/li/a/@href")[0].removeprefix("./")
    assert wiki.content(first) == twin.content(first)
    assert wiki.fulltext("algorithm", 5).estimated_total > 0
    se = ZimReader(build_large_stackexchange(tmp_path / "s.zim", questions=60, seed=3))
    assert se.info.family == "sotoki"
    assert se.info.main_path == "questions"
    hits = se.fulltext("how", 50).paths
    assert any(re.match(r"^questions/\d+/", p) for p in hits)
    assert se.resolve("questions/100000").path.startswith("questions/100000/")


def test_million_entry_builder_at_small_size(tmp_path: Path) -> None:
    path = build_million_entries(tmp_path / "m.zim", entries=300, pages=40, seed=2)
    reader = ZimReader(path)
    assert reader.info.family == "mwoffliner"
    assert reader.info.article_count == 300  # pages and redirects are all front entries
    entries = list(reader.iter_entries())
    redirects = [path for path, _title, is_redirect in entries if is_redirect]
    assert len(redirects) == 260
    landed = {reader.resolve(path).path for path in redirects}
    pages = {path for path, _title, is_redirect in entries if not is_redirect}
    assert landed <= pages
    page = sorted(landed)[0]
    document = get_adapter("mediawiki").parse(
        page, page.replace("_", " "), reader.content(page), "Library"
    )
    assert document.sections[0].content.startswith("The ")
    assert reader.fulltext("the", 5).estimated_total >= 40
    twin = ZimReader(build_million_entries(tmp_path / "twin.zim", entries=300, pages=40, seed=2))
    assert list(twin.iter_entries()) == entries
    with pytest.raises(ValueError, match=r"pages must be in 1\.\.entries"):
        build_million_entries(tmp_path / "bad.zim", entries=10, pages=11)
