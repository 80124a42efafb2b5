"""The section index's pure parts: terms, records, documents made back from records, and
the index folder's states."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

import msgspec
import pytest

from corpus_mcp.document import Document, Passage, Section, walk
from corpus_mcp.sections.analysis import (
    TAIL_STRENGTH,
    Analyser,
    identifier_keys,
    identifiers_named,
)
from corpus_mcp.sections.catalog import (
    LOCK_NAME,
    BuildProgress,
    IndexFolder,
    IndexState,
    staleness,
)
from corpus_mcp.sections.manager import IndexManager, Target, retry_delay
from corpus_mcp.sections.records import partial_document, records
from corpus_mcp.sections.store import INDEX_FORMAT, IndexMeta

ENGLISH = Analyser.for_language("eng")


# -- terms --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        (
            "pandas.DataFrame.dropna",
            {"pandas.dataframe.dropna", "panda", "datafram", "data", "frame", "dropna"},
        ),
        ("DEFAULT_AUTO_FIELD", {"default_auto_field", "default", "auto", "field"}),
        ("std::vec::Vec", {"std::vec::vec", "std", "vec"}),
        ("readFileSync", {"readfilesync", "read", "file", "sync"}),
        ("usage", {"usag", "use"}),
        ("running", {"run"}),
    ],
)
def test_an_identifier_is_indexed_by_the_words_it_is_made_of(
    token: str, expected: set[str]
) -> None:
    assert set(ENGLISH.token_terms(token)) == expected


def test_a_run_of_underscores_is_no_word() -> None:
    assert ENGLISH.token_terms("____") == ()
    assert ENGLISH.term_counts("___ and ___") == {"and": 1}


def test_terms_are_counted_once_per_use() -> None:
    counts = ENGLISH.term_counts("Vec::retain keeps elements; retain is stable. Keep it.")
    assert counts["retain"] == 2  # the whole "Vec::retain" once, and the word once
    assert counts["vec::retain"] == 1
    assert counts["keep"] == 2  # "keeps" and "Keep" stem alike


def test_an_archive_in_a_language_without_a_stemmer_keeps_words_whole() -> None:
    plain = Analyser.for_language("xyz")
    assert plain.algorithm is None
    assert plain.token_terms("Running") == ("running",)
    assert Analyser.for_language("fra,eng").algorithm == "french"


def test_a_joined_query_word_asks_for_the_whole_or_all_its_parts() -> None:
    word = ENGLISH.word("str.join")
    assert (word.whole, word.parts) == ("str.join", ("str", "join"))
    assert ENGLISH.word("sorting").parts == ()


def test_identifier_keys_are_the_whole_name_and_its_tails() -> None:
    assert identifier_keys("std::vec::Vec::retain") == (
        "std::vec::vec::retain",
        "vec::vec::retain",
        "vec::retain",
        "retain",
    )
    assert identifier_keys("Flask.route()") == ("flask.route", "route")
    assert identifier_keys("") == ()


def test_a_question_names_identifiers_and_their_trailing_parts() -> None:
    named = dict(identifiers_named("pd.read_csv"))
    assert named["pd.read_csv"] == 1.0
    assert named["read_csv"] == pytest.approx(TAIL_STRENGTH)
    # Prose names no identifier by its words alone; a short query is tried whole.
    assert "how" not in dict(identifiers_named("how do I read a file"))
    question = ENGLISH.question("Vec::retain in rust")
    assert [w.text for w in question.words] == ["vec::retain", "rust"]
    assert ("vec::retain", 0.8) in question.identifiers


# -- records --------------------------------------------------------------------------------


def _page() -> Document:
    """A reference page: a lead, a heading with an API entry under it, a thread-like
    reference list, and a section with tags."""
    entry = Section(
        id="flask.Flask.route",
        title="route(rule, **options)",
        level=3,
        role="entry",
        passages=(Passage("prose", "Decorate a view function."),),
    )
    app = Section(
        id="application-object",
        title="Application Object",
        level=2,
        passages=(Passage("prose", "The flask object."),),
        children=[entry],
        anchors=["app-object"],
    )
    refs = Section(id="refs", title="References", level=2, role="reference")
    tagged = Section(
        id="question",
        title="How to route?",
        level=2,
        metadata={"tags": ["routing", "flask"], "score": 3, "author": "someone"},
        passages=(Passage("prose", "Ask."),),
    )
    lead = Section(id="", title="API", level=1, passages=(Passage("prose", "The API."),))
    return Document(
        path="api/index",
        title="flask",
        kind="documentation",
        sections=[lead, app, refs, tagged],
        metadata={"heading": "API", "tex": "true", "source_url": "https://x"},
        view=True,
    )


def test_every_searchable_section_becomes_a_record_with_its_fields() -> None:
    names = {("api/index", "flask.Flask.route"): ["Flask.route()"], ("api/index", ""): ["flask"]}
    found = {r.stored.id: r for r in records(_page(), names)}
    assert list(found) == ["", "application-object", "flask.Flask.route", "question"]
    route = found["flask.Flask.route"]
    assert route.titles == "flask API"
    assert route.headings == "Application Object route(rule, **options)"
    assert route.names == ("Flask.route()", "flask.Flask.route")  # navbar name, entry id
    assert route.body == "Decorate a view function."
    assert [a.id for a in route.stored.chain] == ["application-object"]
    assert found[""].names == ("flask",)
    assert found[""].stored.key and not route.stored.key
    assert found["question"].names == ("routing", "flask")  # a thread's tags
    # Metadata ranking reads is kept; who wrote it is not.
    assert found["question"].stored.metadata == {"score": 3, "tags": ["routing", "flask"]}
    assert route.stored.flags == ("tex",)


def test_a_document_made_of_some_sections_keeps_their_places_under_placeholders() -> None:
    stored = {r.stored.id: r.stored for r in records(_page())}
    partial = partial_document([stored["flask.Flask.route"], stored[""]])
    assert [(s.id, s.level) for s in walk(partial.sections)] == [
        ("", 1),
        ("application-object", 2),
        ("flask.Flask.route", 3),
    ]
    placeholder = partial.sections[1]
    assert placeholder.title == "Application Object" and placeholder.passages == ()
    assert partial.sections[1].children[0].passages == (
        Passage("prose", "Decorate a view function."),
    )
    assert partial.metadata == {"heading": "API", "tex": "true"}
    assert (partial.path, partial.title, partial.kind, partial.view) == (
        "api/index",
        "flask",
        "documentation",
        True,
    )
    with pytest.raises(ValueError, match="at least one section"):
        partial_document([])


def test_a_record_survives_the_stored_form() -> None:
    stored = records(_page())[2].stored
    encoded = msgspec.msgpack.encode(stored)
    assert msgspec.msgpack.decode(encoded, type=type(stored)) == stored


# -- the index folder ------------------------------------------------------------------------


def _meta(**changes: object) -> IndexMeta:
    meta = IndexMeta(
        format=INDEX_FORMAT,
        archive_uuid="u",
        archive_size=100,
        adapter="devdocs",
        adapter_version=2,
        language="eng",
        documents=1,
        sections=2,
        built="2026-12-01T00:00:00+00:00",
        seconds=1.0,
    )
    return msgspec.structs.replace(meta, **changes)


def test_an_index_is_stale_under_another_format_adapter_or_archive() -> None:
    assert staleness(_meta(), 2, 100) is None
    assert "format" in (staleness(_meta(format=INDEX_FORMAT - 1), 2, 100) or "")
    assert "adapter version 1, now 2" in (staleness(_meta(adapter_version=1), 2, 100) or "")
    assert "another file" in (staleness(_meta(), 2, 101) or "")


def test_states_read_from_the_folder(tmp_path: Path) -> None:
    folder = IndexFolder(tmp_path)
    assert folder.state("k", 1, 100) == IndexState(state="missing", key="k")
    folder.file("k").write_bytes(b"not an index")
    stale = folder.state("k", 1, 100)
    assert stale.state == "stale" and "unreadable" in (stale.reason or "")
    folder.file("k").unlink()
    folder.record_failure("k", "the disk is full")
    failed = folder.state("k", 1, 100)
    assert (failed.state, failed.reason) == ("failed", "the disk is full")
    again = folder.record_failure("k", "the disk is full")
    assert again.attempts == 2
    folder.clear_failure("k")
    assert folder.state("k", 1, 100).state == "missing"


def test_a_build_is_building_only_while_its_process_holds_the_lock(tmp_path: Path) -> None:
    folder = IndexFolder(tmp_path)
    folder.work("k").mkdir()
    progress = BuildProgress(
        pid=os.getpid(), entries_done=5, entries_total=20, pages=4, sections=9, updated=time.time()
    )
    folder.write_progress("k", progress)
    assert folder.state("k", 1, 100).state == "missing"  # a progress file nobody writes
    with folder.build_lock(wait=False) as held:
        assert held
        state = folder.state("k", 1, 100)
        assert (state.state, state.done, state.total) == ("building", 5, 20)
        assert state.describe() == "building (5/20 entries 25%)"
        with folder.build_lock(wait=False) as second:
            assert not second  # one build at a time in the folder
    assert not folder.building()


def test_a_lock_held_by_another_process_is_seen(tmp_path: Path) -> None:
    folder = IndexFolder(tmp_path)
    fd = os.open(tmp_path / LOCK_NAME, os.O_RDWR | os.O_CREAT)
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child only holds the lock
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(write, b"x")
        time.sleep(30)
        os._exit(0)
    try:
        assert os.read(read, 1) == b"x"
        assert folder.building()
        with folder.build_lock(wait=False) as held:
            assert not held
    finally:
        os.kill(child, 9)
        os.waitpid(child, 0)
        os.close(fd)
    assert not folder.building()


def test_a_folder_that_cannot_be_made_or_written_is_said(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    reason = IndexFolder(blocker / "indexes").usable()
    assert reason is not None and "cannot be created" in reason
    assert IndexFolder(tmp_path / "new").usable() is None
    if os.geteuid() != 0:  # root writes whatever the mode
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        assert "not writable" in (IndexFolder(locked).usable() or "")


def test_failed_builds_back_off() -> None:
    assert [retry_delay(n) for n in (1, 2, 3)] == [60.0, 120.0, 240.0]
    assert retry_delay(50) == 3600.0


def test_state_phrases() -> None:
    assert IndexState(state="ready", sections=1234).describe() == "ready (1,234 sections)"
    assert IndexState(state="off", reason="INDEX=off").describe() == "off (INDEX=off)"
    assert IndexState(state="missing").describe() == "missing"


def test_nothing_is_built_while_another_process_builds(tmp_path: Path) -> None:
    manager = IndexManager(tmp_path)
    target = Target(
        library="lib", archive="/x.zim", uuid="u", size=1, adapter="devdocs", adapter_version=2
    )
    assert manager.next_to_build([target]) == target
    with IndexFolder(tmp_path).build_lock(wait=False) as held:
        assert held
        assert manager.next_to_build([target]) is None
    assert IndexManager(None).next_to_build([target]) is None  # INDEX=off
    assert IndexManager(None).state(target) == IndexState(state="off", reason="INDEX=off")
