"""The web links sample validate and ``list --links`` print, over the demo corpus's
archives: the same figures whether an archive's directory is walked (a small archive)
or probed at points spread through it (a large one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus_mcp import linksample
from corpus_mcp.adapters import get_adapter
from corpus_mcp.demo import DEMO_LIBRARIES
from corpus_mcp.zim import ZimReader


def _sample(demo_corpus: Path) -> linksample.CorpusLinks:
    root = demo_corpus.parent
    readers = {name: ZimReader(root / path) for name, path, _ in DEMO_LIBRARIES}
    adapters = {name: get_adapter(adapter) for name, _, adapter in DEMO_LIBRARIES}
    return linksample.corpus_links(readers, adapters)


def test_a_large_archive_is_probed_and_says_the_same(
    demo_corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    walked = _sample(demo_corpus)
    assert walked.samples["StackOverflow"].describe() == (
        "4 of 6 web links lead into the corpus (Wikipedia 3, Python-Docs 1); sample: 3 "
        "documents with web links (of 28 read)"
    )
    assert walked.unreadable == {}
    monkeypatch.setattr(linksample, "WALKED_ENTRIES", 0)
    probed = _sample(demo_corpus)
    for name in ("StackOverflow", "Math-SE"):
        assert probed.samples[name].into == walked.samples[name].into
        assert probed.samples[name].with_links == walked.samples[name].with_links


def test_what_a_sample_says_when_there_is_nothing_to_say() -> None:
    assert linksample.LinkSample().describe() == "no documents read"
    assert linksample.LinkSample(pages=3).describe() == "no web links in 3 documents read"
