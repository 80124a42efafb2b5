"""The documentation holds together: every Markdown link in README.md, DEVELOPERS.md and
docs/*.md leads to a file that exists and, with a ``#fragment``, to a heading of it (GitHub's
anchors); README maps every page of docs/ and keeps the quickstart on its first screen; the
commands the pages name are the ones ``make help`` and ``corpus-mcp --help`` describe, and
the pages and sections those two point at exist. External links are not fetched."""

from __future__ import annotations

import argparse
import re
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus_mcp.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
DOCUMENTS = [ROOT / "README.md", ROOT / "DEVELOPERS.md", *PAGES]
#: How many lines of README.md a newcomer sees first; the quickstart must be in them.
FIRST_SCREEN = 60

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
#: A code span, which may wrap lines but not cross a blank line.
CODE_SPAN = re.compile(r"(`+)(?:(?!\n[ \t]*\n).)+?\1", re.DOTALL)
#: An inline link or image: [text](target) or [text](target "title").
INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
#: A link reference definition: [label]: target.
DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:[ \t]*<?(\S+?)>?(?:[ \t]+.*)?$", re.MULTILINE)
EXTERNAL = ("http://", "https://", "mailto:")
#: A page of the documentation, and a section of it in quotes, as code, comments and help
#: texts cite them: docs/operations.md, "Archive faults". (DEVELOPERS.md's decisions are
#: cited by their bold titles' words, loosely: not checked here.)
CITATION = re.compile(r"(?<![\w/.])(docs/[\w-]+\.md|README(?:\.md)?)(?:,? \"([^\"]+)\")?")
#: Where the repository's code, comments and configuration may cite the documentation.
CITING = ["src", "tests", "scripts", "deploy", "container", ".ci", "requirements"]
CITING_FILES = ["Makefile", "Containerfile", "pyproject.toml", "corpus.toml", "DEVELOPERS.md"]


def _split_fences(text: str) -> tuple[str, str]:
    """The text outside fenced code blocks, and the text inside them (each with the other's
    lines blank, so line numbers stay)."""
    outside, inside, fence = [], [], ""
    for line in text.split("\n"):
        opening = FENCE.match(line)
        if fence and opening and opening.group(1)[0] == fence[0]:
            fence = "" if len(opening.group(1)) >= len(fence) else fence
            line_is_code = True
        elif fence:
            line_is_code = True
        elif opening:
            fence, line_is_code = opening.group(1), True
        else:
            line_is_code = False
        outside.append("" if line_is_code else line)
        inside.append(line if line_is_code else "")
    return "\n".join(outside), "\n".join(inside)


def _prose(text: str) -> str:
    """The text outside code blocks and code spans: what a renderer reads links from."""
    outside, _ = _split_fences(text)
    return CODE_SPAN.sub(lambda span: "\n" * span.group(0).count("\n"), outside)


def _code(text: str) -> str:
    """The code of a Markdown text, its fenced blocks and code spans, without the comments
    that follow a command (``make bench   # corpus-mcp vs kiwix-serve``)."""
    outside, inside = _split_fences(text)
    code = "\n".join([inside, *(span.group(0) for span in CODE_SPAN.finditer(outside))])
    return re.sub(r"\s#\s.*$", "", code, flags=re.MULTILINE)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, links by their text, every
    character but letters, digits, '_', '-' and spaces dropped, spaces made '-'."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of the headings of a Markdown file (a repeated one gets -1, -2, ...)."""
    seen: Counter[str] = Counter()
    found = set()
    for line in _split_fences(path.read_text())[0].split("\n"):
        heading = HEADING.match(line)
        if heading is None:
            continue
        base = slug(heading.group(2))
        found.add(f"{base}-{seen[base]}" if seen[base] else base)
        seen[base] += 1
    return found


def links(path: Path) -> Iterator[tuple[int, str]]:
    """Every link target of a Markdown file, with its line."""
    prose = _prose(path.read_text())
    for pattern in (INLINE_LINK, DEFINITION):
        for match in pattern.finditer(prose):
            yield prose.count("\n", 0, match.start()) + 1, match.group(1)


def broken_links(path: Path, root: Path) -> list[str]:
    """What is wrong with the links of a Markdown file, one line each (none: all resolve).
    Relative targets must name a file under ``root``; a fragment, a heading of that file."""
    problems = []
    for line, target in links(path):
        where = f"{path.relative_to(root)}:{line}: ({target})"
        if target.startswith(EXTERNAL):
            continue
        file_part, _, fragment = target.partition("#")
        if not file_part and not fragment:
            problems.append(f"{where}: an empty link")
            continue
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.is_relative_to(root.resolve()):
            problems.append(f"{where}: leads out of the repository")
        elif not linked.exists():
            problems.append(f"{where}: no such file")
        elif fragment and linked.suffix != ".md":
            problems.append(f"{where}: an anchor in a file that is not Markdown")
        elif fragment and fragment not in anchors(linked):
            problems.append(f"{where}: no heading '{fragment}' in {linked.name}")
    return problems


def _has_section(path: Path, section: str) -> bool:
    """A heading of that name, or a paragraph or item led by it in bold."""
    words = " ".join(path.read_text().split())
    return slug(section) in anchors(path) or f"**{section}" in words


def cited_sections(text: str) -> list[str]:
    """What is wrong with the pages and sections a text cites (``docs/x.md, "Section"``),
    a citation wrapped over comment lines too."""
    joined = re.sub(r"\n[ \t]*(?:#+|//|\*|--)?[ \t]*", " ", text)
    problems = []
    for page, section in CITATION.findall(" ".join(joined.split())):
        path = ROOT / (page if page.endswith(".md") else f"{page}.md")
        if not path.exists():
            problems.append(f"{page}: no such page")
        elif section and not _has_section(path, section):
            problems.append(f'{page}, "{section}": no such section')
    return problems


# -- the checker itself --------------------------------------------------------------------


def test_slugs_are_githubs() -> None:
    assert slug("A corpus in one command: `corpus-mcp init`") == (
        "a-corpus-in-one-command-corpus-mcp-init"
    )
    assert slug("corpus.toml") == "corpustoml"
    assert slug("Metrics, readiness and logs") == "metrics-readiness-and-logs"
    assert slug("How the benchmark measures, and why") == "how-the-benchmark-measures-and-why"
    assert slug("The [tools](x.md) in_full") == "the-tools-in_full"


def test_a_broken_link_is_reported(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "page.md"
    page.write_text(
        "# Page\n\n## Twice\n\n## Twice\n\n"
        "Fine: [a](#page), [b](#twice-1), [c](../README.md#readme), [d](https://x.invalid/#q).\n"
        "Broken: [e](#nowhere), [f](missing.md), [g](../README.md#nowhere),\n"
        "[h](#twice-2), [i](../../outside.md), [j](<>).\n\n"
        "[k]: other.md#x\n\n"
        "```md\n[not a link](nowhere.md)\n```\n\nNor `[this](nowhere.md)`.\n"
    )
    (tmp_path / "README.md").write_text("# README\n\n```sh\n# not a heading\n```\n")
    assert broken_links(page, tmp_path) == [
        "docs/page.md:8: (#nowhere): no heading 'nowhere' in page.md",
        "docs/page.md:8: (missing.md): no such file",
        "docs/page.md:8: (../README.md#nowhere): no heading 'nowhere' in README.md",
        "docs/page.md:9: (#twice-2): no heading 'twice-2' in page.md",
        "docs/page.md:9: (../../outside.md): leads out of the repository",
        "docs/page.md:9: (): an empty link",
        "docs/page.md:11: (other.md#x): no such file",
    ]
    assert anchors(tmp_path / "README.md") == {"readme"}


def test_a_citation_of_a_missing_section_is_reported() -> None:
    assert cited_sections('docs/ci.md, "What CI checks"; README.md; x/README.md, "Y"') == []
    assert cited_sections('see docs/ci.md, "What CI\n  #  checks" too') == []
    assert cited_sections('docs/ci.md, "Coverage gates"; docs/operations.md, "Shutdown"') == [
        'docs/operations.md, "Shutdown": no such section'
    ]
    assert cited_sections('docs/ci.md, "Nowhere", docs/nowhere.md, README "Scale"') == [
        'docs/ci.md, "Nowhere": no such section',
        "docs/nowhere.md: no such page",
        'README, "Scale": no such section',
    ]


# -- the repository's documentation ------------------------------------------------------------


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_link_resolves(document: Path) -> None:
    assert broken_links(document, ROOT) == []


def test_the_links_are_found() -> None:
    found = [target for _, target in links(ROOT / "README.md")]
    assert "docs/agents.md" in found and "#connecting-an-mcp-host" in found
    assert "#question" not in found  # inside a JSON example: not a link


def test_the_readme_maps_every_page_of_docs() -> None:
    mapped = {
        (ROOT / target.partition("#")[0]).resolve()
        for _, target in links(ROOT / "README.md")
        if target.startswith("docs/")
    }
    assert PAGES, "docs/ has no page"
    assert [page.name for page in PAGES if page.resolve() not in mapped] == []


def test_every_page_has_one_title() -> None:
    for page in PAGES:
        outside = _split_fences(page.read_text())[0]
        titles = [line for line in outside.split("\n") if line.startswith("# ")]
        assert len(titles) == 1, f"{page.name}: {titles}"
        assert page.read_text().startswith(titles[0])


def test_the_quickstart_is_on_the_readme_first_screen() -> None:
    first_screen = "\n".join((ROOT / "README.md").read_text().split("\n")[:FIRST_SCREEN])
    assert "## Quickstart" in first_screen
    assert "make run " in first_screen and "make test " in first_screen


def _make_help() -> str:
    return subprocess.run(
        ["make", "--no-print-directory", "-s", "help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout


def test_make_help_describes_every_make_command_the_documentation_names() -> None:
    phony = re.search(r"^\.PHONY:((?:.*\\\n)*.*)$", (ROOT / "Makefile").read_text(), re.M)
    assert phony
    targets = set(phony.group(1).replace("\\", " ").split())
    described = {
        word
        for line in _make_help().split("\n")
        if line.startswith("make ")
        for word in re.findall(r"[a-z][a-z-]*", line.split("  ")[0])
    } & targets
    # Steps of `make run` (demo, manifest), its alias (serve) and help itself.
    assert targets - described == {"help", "demo", "manifest", "serve"}
    named = {
        target
        for document in DOCUMENTS
        for target in re.findall(r"\bmake ([a-z][a-z-]*)", _code(document.read_text()))
    }
    assert {"run", "test", "init", "start"} <= named
    assert named - described == set()


def test_make_help_points_at_pages_and_sections_that_exist() -> None:
    text = _make_help()
    assert CITATION.search(text)
    assert cited_sections(text) == []


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(commands.choices)


def test_corpus_mcp_help_points_at_pages_and_sections_that_exist() -> None:
    subcommands = _subcommands()
    assert len(subcommands) == 8
    for text in [build_parser().format_help(), *(c.format_help() for c in subcommands.values())]:
        assert CITATION.search(text), text[:200]
        assert cited_sections(text) == []


def test_every_corpus_mcp_command_the_documentation_names_exists() -> None:
    commands = set(_subcommands())
    named = {
        command
        for document in DOCUMENTS
        for command in re.findall(r"\bcorpus-mcp ([a-z]+)\b", _code(document.read_text()))
    }
    assert named - commands == set()
    assert commands - named == set(), "a command the documentation never mentions"


def _citing_files() -> Iterator[Path]:
    for folder in CITING:
        for path in sorted((ROOT / folder).rglob("*")):
            ignored = {"node_modules", "__pycache__", "golden"} & set(path.parts)
            if path.is_file() and not ignored and path != Path(__file__).resolve():
                yield path
    yield from (ROOT / name for name in CITING_FILES)


def test_every_citation_of_the_documentation_names_a_section_that_exists() -> None:
    problems = [
        f"{path.relative_to(ROOT)}: {problem}"
        for path in _citing_files()
        for problem in cited_sections(path.read_text(errors="replace"))
    ]
    assert problems == []
