"""fetch() through the real corpus manager over real archives: redirects, stubs, aliases,
budgets, determinism and every error an agent can cause."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import msgspec
import pytest

from corpus_mcp import refs
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.errors import CorpusError
from corpus_mcp.wire import FetchOutput

from .conftest import NO_REAL_ARCHIVES, REAL_ARCHIVES_PRESENT, REAL_LIBRARIES, settings_for

THREAD = "questions/3277367/how-does-python-s-super-work-with-multiple-inheritance"


async def _error(corpus: Corpus, ref: str, sections: list[str] | None = None) -> CorpusError:
    with pytest.raises(CorpusError) as info:
        await corpus.fetch(ref, sections)
    return info.value


async def test_a_plain_redirect_returns_the_canonical_document_and_ref(corpus: Corpus) -> None:
    out = await corpus.fetch("corpus://Wikipedia/Method_resolution_order", None)
    assert out.ref == "corpus://Wikipedia/C3_linearization"
    assert out.title == "C3 linearization"
    assert out.kind == "article"
    assert out.sections[0].id == ""  # the whole document, lead first


async def test_a_redirect_chain_is_followed(corpus: Corpus) -> None:
    direct = await corpus.fetch("corpus://Wikipedia/Python_language", None)
    chained = await corpus.fetch("corpus://Wikipedia/Python_(language)", None)
    assert chained.ref == direct.ref
    assert chained.title == direct.title


async def test_a_fragment_redirect_stub_lands_on_its_section(corpus: Corpus) -> None:
    out = await corpus.fetch("corpus://Wikipedia/Ray_Charles_early_life", None)
    assert out.ref == "corpus://Wikipedia/Ray_Charles"
    assert out.sections[0].id == "Early_life"
    assert all(s.id != "" for s in out.sections)  # only the landed section's subtree
    assert out.available_sections[0].id == ""


async def test_sotoki_question_and_answer_redirects_land_on_the_thread(corpus: Corpus) -> None:
    qid = THREAD.split("/")[1]
    thread = await corpus.fetch(f"corpus://StackOverflow/questions/{qid}", None)
    assert thread.ref == f"corpus://StackOverflow/{THREAD}"
    assert thread.kind == "thread"
    assert [s.id for s in thread.sections][:1] == ["question"]
    answers = [s for s in thread.sections if s.id.startswith("answer-")]
    assert answers, "the thread has non-accepted answers"
    answer_id = answers[0].id.removeprefix("answer-")
    landed = await corpus.fetch(f"corpus://StackOverflow/a/{answer_id}", None)
    assert landed.ref == thread.ref
    assert [s.id for s in landed.sections] == [f"answer-{answer_id}"]
    assert isinstance(landed.sections[0].metadata, dict)
    assert landed.sections[0].metadata["accepted"] is False


async def test_the_accepted_answer_has_an_answer_id_alias(corpus: Corpus) -> None:
    thread = await corpus.fetch(refs.encode("StackOverflow", THREAD), ["accepted-answer"])
    accepted, *comments = thread.sections
    assert all(s.id.startswith("comments-") and s.level == 3 for s in comments)
    assert isinstance(accepted.metadata, dict)
    answer_id = accepted.metadata["answer_id"]
    by_alias = await corpus.fetch(refs.encode("StackOverflow", THREAD), [f"answer-{answer_id}"])
    assert by_alias.sections == thread.sections
    via_redirect = await corpus.fetch(f"corpus://StackOverflow/a/{answer_id}", None)
    assert [s.id for s in via_redirect.sections][:1] == ["accepted-answer"]


async def test_devdocs_api_entries_are_sections_of_their_own(corpus: Corpus) -> None:
    whole = await corpus.fetch("corpus://Python-Docs/library/stdtypes", None)
    out = await corpus.fetch("corpus://Python-Docs/library/stdtypes", ["str.join"])
    [entry] = out.sections
    assert entry.title == "str.join(iterable)"
    assert entry.content.startswith("Return a string which is the concatenation")
    page_chars = sum(len(s.content) for s in whole.sections)
    assert sum(len(s.content) for s in out.sections) * 3 < page_chars
    listed = {s.id: s for s in out.available_sections}
    assert listed["str.join"].level == entry.level
    by_ref = await corpus.fetch("corpus://Python-Docs/library/stdtypes#str.join", None)
    assert by_ref.sections == out.sections


async def test_sections_come_in_document_order_with_duplicates_collapsed(corpus: Corpus) -> None:
    whole = await corpus.fetch("corpus://Wikipedia/Ray_Charles", None)
    ids = [s.id for s in whole.available_sections if s.id]
    picked = await corpus.fetch("corpus://Wikipedia/Ray_Charles", [ids[-1], ids[0], ids[-1]])
    assert picked.sections[0].id == ids[0]
    assert [s.id for s in picked.sections].count(ids[-1]) == 1


async def test_the_budget_cuts_at_a_section_boundary(full_corpus: Path) -> None:
    settings = settings_for(full_corpus, MAX_FETCH_CHARS="600")
    manifest = load_manifest(full_corpus, full_corpus.parent)
    async with open_corpus(settings, manifest) as small:
        whole = await small.fetch("corpus://Wikipedia/Ray_Charles", None)
    assert whole.truncated is True
    assert sum(len(s.title) + len(s.content) for s in whole.sections) <= 600
    assert len(whole.available_sections) > len(whole.sections)
    # Nothing is dropped unlisted: what is not returned is listed with its size.
    returned = {s.id for s in whole.sections}
    assert all(s.chars for s in whole.available_sections if s.id not in returned and s.level == 2)


THREADING = "corpus://Python-Docs/library/threading"


@pytest.fixture
async def folding_corpus(full_corpus: Path) -> AsyncIterator[Corpus]:
    """The full test corpus with a fetch budget its reference pages exceed (600 chars:
    the demo's threading page is 1,872, its Thread class 870 with four methods)."""
    settings = settings_for(full_corpus, FETCH_BUDGET_CHARS="600")
    async with open_corpus(settings, load_manifest(full_corpus, full_corpus.parent)) as opened:
        yield opened


def _size(out: FetchOutput) -> int:
    return sum(len(s.title) + len(s.content) for s in out.sections)


async def test_a_class_over_the_budget_brings_its_first_methods_and_lists_the_others(
    folding_corpus: Corpus,
) -> None:
    out = await folding_corpus.fetch(THREADING + "#threading.Thread", None)
    cls, *methods = out.sections
    assert cls.id == "threading.Thread" and cls.title.startswith("class threading.Thread(")
    # Filled in document order up to the budget: the methods that fit come, the fill
    # stops at the first that does not, and the rest are listed with their sizes.
    assert [s.id for s in methods] == ["threading.Thread.start", "threading.Thread.run"]
    assert _size(out) <= 600
    assert out.truncated is True
    left_out = {s.id: s for s in out.available_sections if s.chars}
    assert list(left_out) == ["threading.Thread.join", "threading.Thread.daemon"]
    assert {s.level for s in left_out.values()} == {cls.level + 1}
    # Each listed size is what fetching that id returns.
    for sid, listed in left_out.items():
        method = await folding_corpus.fetch(out.ref, [sid])
        assert [s.id for s in method.sections] == [sid]
        assert _size(method) == listed.chars
        assert method.truncated is False


async def test_a_method_asked_for_with_its_class_comes_without_the_others(
    folding_corpus: Corpus,
) -> None:
    out = await folding_corpus.fetch(THREADING, ["threading.Thread", "threading.Thread.join"])
    assert [s.id for s in out.sections] == ["threading.Thread", "threading.Thread.join"]


async def test_a_whole_document_over_the_budget_is_filled_in_order_and_the_rest_listed(
    folding_corpus: Corpus, corpus: Corpus
) -> None:
    whole = await corpus.fetch(THREADING, None)
    out = await folding_corpus.fetch(THREADING, None)
    # The lead fits; "Thread Objects" would be a bare heading (its class does not fit
    # after it): it is listed whole with "Lock Objects".
    assert [s.id for s in out.sections] == [""]
    assert out.sections == whole.sections[:1]
    left_out = {s.id: s.chars for s in out.available_sections if s.chars}
    assert list(left_out) == ["thread-objects", "lock-objects"]
    assert _size(out) + sum(left_out.values()) == _size(whole)
    assert out.title == whole.title and out.available_sections[0].id == ""


async def test_every_section_of_a_folded_document_is_reachable(folding_corpus: Corpus) -> None:
    """Following the sections each answer lists for size reaches every section."""
    seen: set[str] = set()
    queue: list[list[str] | None] = [None]
    everything: set[str] = set()
    while queue:
        asked = queue.pop()
        out = await folding_corpus.fetch(THREADING, asked)
        everything |= {s.id for s in out.available_sections}
        seen |= {s.id for s in out.sections}
        queue += [[s.id] for s in out.available_sections if s.chars]
    assert everything and seen == everything


async def test_the_older_cap_bounds_the_fetch_budget(full_corpus: Path) -> None:
    settings = settings_for(full_corpus, FETCH_BUDGET_CHARS="100000", MAX_FETCH_CHARS="600")
    async with open_corpus(settings, load_manifest(full_corpus, full_corpus.parent)) as small:
        out = await small.fetch(THREADING, None)
    assert _size(out) <= 600
    assert [s.id for s in out.sections] == [""]


async def test_fetch_is_deterministic_cold_and_cached(corpus: Corpus) -> None:
    ref = "corpus://StackOverflow/" + THREAD
    first = msgspec.json.encode(await corpus.fetch(ref, None))
    corpus.cache.clear()
    cold = msgspec.json.encode(await corpus.fetch(ref, None))
    cached = msgspec.json.encode(await corpus.fetch(ref, None))
    assert first == cold == cached


@pytest.mark.parametrize(
    ("ref", "code", "needle"),
    [
        ("corpus://nowhere/x", "invalid_ref", "unknown library 'nowhere'"),
        ("corpus://retired/Anything", "invalid_ref", "not enabled"),
        ("https://en.wikipedia.org/wiki/Ray_Charles", "invalid_ref", "start with"),
        ("corpus://Wikipedia/../../etc/passwd", "invalid_ref", "'..'"),
        ("corpus://Wikipedia/No_such_page", "not_found", "no document at 'No_such_page'"),
        ("corpus://Python-Docs/navbar.json", "not_found", "not a document"),
        ("corpus://Python-Docs/licenses.txt", "not_found", "not a document"),
        ("corpus://StackOverflow/tags", "not_found", "not a document"),
    ],
)
async def test_bad_refs_get_structured_errors(
    corpus: Corpus, ref: str, code: str, needle: str
) -> None:
    error = await _error(corpus, ref)
    assert error.code == code
    assert needle in error.message
    if code == "not_found":
        assert error.details["library"] in corpus.libraries


async def test_unknown_sections_list_what_is_available(corpus: Corpus) -> None:
    error = await _error(corpus, "corpus://Wikipedia/Ray_Charles", ["Early_life", "Nope"])
    payload = error.payload()
    assert payload["error"] == "section_not_found"
    assert payload["missing_sections"] == ["Nope"]
    assert {"id": "Early_life", "title": "Early life", "level": 2} in payload["available_sections"]


@pytest.mark.skipif(not REAL_ARCHIVES_PRESENT, reason=NO_REAL_ARCHIVES)
@pytest.mark.parametrize("library", sorted(REAL_LIBRARIES))
async def test_every_document_of_every_real_archive_fetches(corpus: Corpus, library: str) -> None:
    reader = corpus.library(library).service.reader
    fetched = 0
    for path, _title, is_redirect in reader.iter_entries():
        if is_redirect or not corpus.library(library).adapter.is_content(
            path, reader.resolve(path).mimetype
        ):
            continue
        out = await corpus.fetch(refs.encode(library, path), None)
        assert out.sections, path
        assert out.title, path
        assert "<div" not in "".join(s.content for s in out.sections), path
        fetched += 1
    assert fetched >= 60
