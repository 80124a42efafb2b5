"""ZimReader and open_readers on the real scraper-made archives and on built ones."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from corpus_mcp.zim import (
    MAX_REDIRECT_HOPS,
    EntryNotFound,
    OpenFailure,
    RedirectError,
    Suggestion,
    ZimOpenError,
    ZimReader,
    normalise_path,
    open_readers,
    snapshot_of,
)
from corpus_mcp.zim.writer import Page, Redirect, write_zim

MINI_2022 = "wikipedia_en_100_mini_2022-10.zim"
MINI_2020 = "wikipedia_en_ray_charles_mini_2020-03.zim"
NOVID_2018 = "wikipedia_en_ray_charles_novid_2018-10.zim"
WIKIBOOKS_2017 = "wikibooks_be_all_nopic_2017-02.zim"
CHAIN_DEPTH = MAX_REDIRECT_HOPS + 4

# What libzim 3.13 really does with openzim/zim-testing-suite's broken archives. The
# shared README lists outofbounds_first_clusterptr among the ones that open; 3.13
# already refuses it at open ("Cannot read after the end of the reader").
FAIL_TO_OPEN = {
    "bad_mimetype_list": "Error getting mimelists",
    "invalid_checksumpos": "bad size or corrupted",
    "invalid_mimelistpos": "mimelistPos must be 80",
    "nonsorted_dirent_table": "Dirent table is not properly sorted",
    "offset_in_cluster": "Offsets are not ordered",
    "outofbounds_clusterptrpos": "Cluster pointer table outside",
    "outofbounds_first_clusterptr": "Cannot read after the end of the reader",
    "outofbounds_first_direntptr": "Invalid dirent pointer",
    "outofbounds_last_direntptr": "Invalid dirent pointer",
    "outofbounds_titleptrpos": "Title index table outside",
    "outofbounds_urlptrpos": "Dirent pointer table outside",
    "smaller_than_header": "too small to contain a header",
}
FAIL_ONLY_CHECK = (
    "bad_mimetype_in_dirent",
    "nonsorted_title_index",
    "outofbounds_first_title_entry",
    "outofbounds_last_title_entry",
)


def invalid(shared_zims: Path, kind: str) -> Path:
    return shared_zims / "invalid" / f"invalid.{kind}.zim"


@pytest.fixture(scope="module")
def readers(shared_zims: Path) -> dict[str, ZimReader]:
    names = (MINI_2022, MINI_2020, NOVID_2018, WIKIBOOKS_2017)
    return {name: ZimReader(shared_zims / name) for name in names}


# -- broken archives ------------------------------------------------------------------------


def test_every_invalid_archive_is_classified(shared_zims: Path) -> None:
    kinds = {
        p.name.removeprefix("invalid.").removesuffix(".zim")
        for p in shared_zims.glob("invalid/*.zim")
    }
    assert kinds == set(FAIL_TO_OPEN) | set(FAIL_ONLY_CHECK)


@pytest.mark.parametrize(("kind", "reason"), sorted(FAIL_TO_OPEN.items()))
def test_broken_archive_fails_to_open_with_libzim_reason(
    shared_zims: Path, kind: str, reason: str
) -> None:
    with pytest.raises(ZimOpenError) as caught:
        ZimReader(invalid(shared_zims, kind))
    assert reason in caught.value.reason


@pytest.mark.parametrize("kind", FAIL_ONLY_CHECK)
def test_subtly_broken_archive_opens_but_fails_check(shared_zims: Path, kind: str) -> None:
    assert ZimReader(invalid(shared_zims, kind)).check() is False


def test_unreadable_metadata_fails_the_open_instead_of_reading_as_absent(
    shared_zims: Path,
) -> None:
    # The metadata keys are listed but their cluster lies past the end of the file.
    with pytest.raises(ZimOpenError) as caught:
        ZimReader(invalid(shared_zims, "outofbounds_first_clusterptr"))
    assert caught.value.reason == (
        "metadata 'Scraper' is unreadable: Cannot read after the end of the reader"
    )


def test_absent_metadata_is_none(readers: dict[str, ZimReader]) -> None:
    reader = readers[MINI_2022]
    assert reader.metadata("Title") == "Wikipedia 100"
    assert reader.metadata("No-such-key") is None


def test_missing_file_fails_to_open(tmp_path: Path) -> None:
    with pytest.raises(ZimOpenError):
        ZimReader(tmp_path / "absent.zim")


def test_open_readers_names_every_failing_library(shared_zims: Path) -> None:
    files = {
        "good": shared_zims / MINI_2020,
        "tiny": invalid(shared_zims, "smaller_than_header"),
        "unsorted": invalid(shared_zims, "nonsorted_dirent_table"),
    }
    with pytest.raises(OpenFailure) as caught:
        open_readers(files)
    assert set(caught.value.failures) == {"tiny", "unsorted"}
    message = str(caught.value)
    assert "library 'tiny': zim-file is too small to contain a header" in message
    assert "library 'unsorted': Dirent table is not properly sorted" in message


def test_open_readers_without_check_accepts_subtle_damage(shared_zims: Path) -> None:
    files = {kind: invalid(shared_zims, kind) for kind in FAIL_ONLY_CHECK}
    assert set(open_readers(files)) == set(FAIL_ONLY_CHECK)


def test_open_readers_with_check_fails_on_each_bad_checksum(shared_zims: Path) -> None:
    files: dict[str, Path] = {"good": shared_zims / MINI_2020}
    files |= {kind: invalid(shared_zims, kind) for kind in FAIL_ONLY_CHECK}
    progress: list[tuple[str, str]] = []
    with pytest.raises(OpenFailure) as caught:
        open_readers(files, check=True, progress=lambda name, text: progress.append((name, text)))
    assert caught.value.failures == dict.fromkeys(
        FAIL_ONLY_CHECK, "integrity check failed (libzim Archive.check)"
    )
    assert ("good", "check passed") in progress
    assert ("good", "checking 0.6 MB") in progress


def test_open_readers_with_check_on_healthy_archives(shared_zims: Path) -> None:
    files = {"mini": shared_zims / MINI_2022, "books": shared_zims / WIKIBOOKS_2017}
    readers = open_readers(files, check=True)
    assert readers["mini"].info.name == "wikipedia_en_100"


# -- metadata ---------------------------------------------------------------------------


def test_info_of_the_2022_mini(readers: dict[str, ZimReader]) -> None:
    info = readers[MINI_2022].info
    assert (info.title, info.name, info.snapshot, info.language) == (
        "Wikipedia 100",
        "wikipedia_en_100",
        "2022-10",
        "eng",
    )
    assert (info.scraper, info.flavour, info.family) == ("mwoffliner 1.11.12", "mini", "mwoffliner")
    assert (info.entry_count, info.article_count) == (4066, 101)
    assert info.size == 1993081
    assert info.has_fulltext_index and info.has_title_index
    assert not info.new_namespace_scheme
    assert info.main_path == "index"
    assert "_category:wikipedia" in info.tags


def test_2018_archive_without_scraper_is_detected_by_tags(readers: dict[str, ZimReader]) -> None:
    info = readers[NOVID_2018].info
    assert info.scraper is None
    assert (info.family, info.family_evidence) == ("mwoffliner", "Tags 'wikipedia'")
    assert info.snapshot == "2018-10"
    assert info.has_fulltext_index and not info.has_title_index
    assert info.main_path == "index.htm"


def test_2017_wikibooks_without_scraper_or_wiki_tag(readers: dict[str, ZimReader]) -> None:
    info = readers[WIKIBOOKS_2017].info
    assert (info.scraper, info.tags, info.name) == (None, ("nopic",), "kiwix.wikibooks_be_all")
    assert (info.family, info.family_evidence) == ("mwoffliner", "Name 'kiwix.wikibooks_be_all'")
    assert (info.language, info.snapshot) == ("bel", "2017-02")
    assert not info.has_fulltext_index and not info.has_title_index
    assert info.main_path == "Першая_старонка"


def test_metadata_of_absent_key_is_none(readers: dict[str, ZimReader]) -> None:
    assert readers[NOVID_2018].metadata("Date") == "2018-10-12"
    assert readers[NOVID_2018].metadata("Scraper") is None


@pytest.mark.parametrize(
    ("date", "file", "snapshot"),
    [
        ("2026-06-02", "x.zim", "2026-06"),
        (None, "/c/wikipedia_en_all_maxi_2026-05a.zim", "2026-05"),
        ("garbage", "/c/devdocs_en_c_2025-11.zim", "2025-11"),
        (None, "/c/nodate.zim", None),
    ],
)
def test_snapshot_of(date: str | None, file: str, snapshot: str | None) -> None:
    assert snapshot_of(date, file) == snapshot


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("A/Ray_Charles", "Ray_Charles"),
        ("A/Ray_Charles.html", "Ray_Charles"),
        ("questions/42/title", "questions/42/title"),
        ("I/logo.png", "I/logo.png"),
        ("library/os.html", "library/os.html"),
    ],
)
def test_normalise_path(raw: str, normalised: str) -> None:
    assert normalise_path(raw) == normalised


# -- entries ----------------------------------------------------------------------------


def test_lookup_by_normalised_path_in_old_scheme(readers: dict[str, ZimReader]) -> None:
    reader = readers[MINI_2022]
    resolved = reader.resolve("Michael_Jackson")
    assert (resolved.path, resolved.title, resolved.mimetype) == (
        "Michael_Jackson",
        "Michael Jackson",
        "text/html",
    )
    assert resolved.redirected_from is None
    assert reader.content("Michael_Jackson").startswith(b"<!DOCTYPE html>")
    assert reader.has_entry("Michael_Jackson")


def test_2018_html_suffix_is_stripped(readers: dict[str, ZimReader]) -> None:
    reader = readers[NOVID_2018]
    resolved = reader.resolve("Ray_Charles")
    assert resolved.path == "Ray_Charles"
    assert b"Ray Charles" in reader.content("Ray_Charles")
    hits = reader.fulltext("ray charles", 3).paths
    assert "Ray_Charles" in hits
    assert not any(hit.endswith(".html") for hit in hits)


def test_redirect_is_followed(readers: dict[str, ZimReader]) -> None:
    resolved = readers[MINI_2020].resolve("Charles,_Ray")
    assert resolved.path == "Ray_Charles"
    assert resolved.redirected_from == "Charles,_Ray"
    assert readers[MINI_2020].content("Charles,_Ray") == readers[MINI_2020].content("Ray_Charles")


def test_main_path_resolves(readers: dict[str, ZimReader]) -> None:
    for reader in readers.values():
        assert reader.info.main_path is not None
        assert reader.resolve(reader.info.main_path).mimetype == "text/html"


def test_unknown_path_is_not_found(readers: dict[str, ZimReader]) -> None:
    with pytest.raises(EntryNotFound):
        readers[MINI_2022].resolve("No_Such_Article")
    assert not readers[MINI_2022].has_entry("No_Such_Article")


def test_real_archives_pass_check(readers: dict[str, ZimReader]) -> None:
    assert readers[MINI_2020].check() is True


# -- search -----------------------------------------------------------------------------


def test_suggestions_include_redirects(readers: dict[str, ZimReader]) -> None:
    suggestions = readers[MINI_2022].suggest("michael jack", 5)
    assert Suggestion("Jackson,_Michael", "Jackson, Michael") in suggestions
    assert Suggestion("Michael_Jackson", "Michael Jackson") in suggestions
    assert len(suggestions) == 5
    assert Suggestion("Charles,_Ray", "Charles, Ray") in readers[MINI_2020].suggest("ray char", 5)
    assert readers[MINI_2020].suggest("ray", 0) == []


def test_title_fallback_without_a_title_index_ignores_the_first_letters_case(
    readers: dict[str, ZimReader],
) -> None:
    books = readers[WIKIBOOKS_2017]
    assert not books.info.has_title_index
    assert books.suggest("кава", 5) == [Suggestion("Кава", "Кава")]
    assert books.suggest("Кава", 5) == [Suggestion("Кава", "Кава")]
    assert books.suggest("італьянская мова", 1) == [
        Suggestion("Італьянская_мова", "Італьянская мова")
    ]


def test_fulltext_returns_normalised_ranked_paths(readers: dict[str, ZimReader]) -> None:
    page = readers[MINI_2022].fulltext("music", 3)
    assert page.paths == ["Billboard_(magazine)", "The_Beatles", "Michael_Jackson"]
    assert page.estimated_total == 10
    assert readers[MINI_2022].fulltext("music", 3, offset=3).paths[0] == "Elvis_Presley"


def test_fulltext_skips_htdig_noindex_footer(readers: dict[str, ZimReader]) -> None:
    assert readers[MINI_2022].fulltext("Sharealike", 5).paths == []


def test_fulltext_without_index_is_empty(readers: dict[str, ZimReader]) -> None:
    page = readers[WIKIBOOKS_2017].fulltext("кніга", 5)
    assert (page.paths, page.estimated_total) == ([], 0)


def test_document_frequency_is_libzims_estimate_and_zero_without_index(
    readers: dict[str, ZimReader],
) -> None:
    assert readers[MINI_2022].document_frequency("music") == 10
    assert readers[WIKIBOOKS_2017].document_frequency("кніга") == 0


def test_read_follows_redirects_to_the_content(readers: dict[str, ZimReader]) -> None:
    entry, content = readers[MINI_2020].read("Charles,_Ray")
    assert (entry.path, entry.redirected_from) == ("Ray_Charles", "Charles,_Ray")
    assert content == readers[MINI_2020].content("Ray_Charles")


# -- redirect chains -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def chain_archive(tmp_path_factory: pytest.TempPathFactory) -> ZimReader:
    """A new-scheme archive with a chain r0 -> r1 -> ... -> r<CHAIN_DEPTH> -> page."""
    depth = CHAIN_DEPTH
    redirects = [Redirect(path=f"r{i}", target=f"r{i + 1}", title=f"R{i}") for i in range(depth)]
    redirects.append(Redirect(path=f"r{depth}", target="page", title="Last"))
    path = write_zim(
        tmp_path_factory.mktemp("chain") / "chain.zim",
        pages=[Page(path="page", title="Page", content="<html><body>page</body></html>")],
        redirects=redirects,
        metadata={"Title": "Chain", "Name": "chain", "Scraper": "devdocs2zim 3.0.2"},
        main_path="r0",
    )
    return ZimReader(path)


def test_built_archive_uses_new_scheme(chain_archive: ZimReader) -> None:
    info = chain_archive.info
    assert info.new_namespace_scheme
    assert info.family == "devdocs2zim"
    assert info.snapshot is None


def test_chain_within_hop_limit_resolves(chain_archive: ZimReader) -> None:
    start = CHAIN_DEPTH + 1 - MAX_REDIRECT_HOPS  # reaches page in exactly the limit
    resolved = chain_archive.resolve(f"r{start}")
    assert (resolved.path, resolved.redirected_from) == ("page", f"r{start}")


def test_chain_beyond_hop_limit_is_refused(chain_archive: ZimReader) -> None:
    with pytest.raises(RedirectError, match=f"longer than {MAX_REDIRECT_HOPS}"):
        chain_archive.resolve(f"r{CHAIN_DEPTH - MAX_REDIRECT_HOPS}")


class _FakeEntry:
    def __init__(self, path: str, target: str) -> None:
        self.path, self.target, self.title = path, target, path
        self.is_redirect = True
        self.archive: _FakeArchive | None = None

    def get_redirect_entry(self) -> _FakeEntry:
        assert self.archive is not None
        return self.archive.entries[self.target]


class _FakeArchive:
    """libzim's writer drops redirect loops, so a loop can only come from a fake."""

    def __init__(self, links: dict[str, str]) -> None:
        self.entries = {path: _FakeEntry(path, target) for path, target in links.items()}
        for entry in self.entries.values():
            entry.archive = self

    def has_entry_by_path(self, path: str) -> bool:
        return path in self.entries

    def get_entry_by_path(self, path: str) -> Any:
        return self.entries[path]


def test_redirect_loop_is_detected(
    chain_archive: ZimReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = _FakeArchive({"a": "b", "b": "c", "c": "a"})
    monkeypatch.setattr(chain_archive, "_archive", fake)
    with pytest.raises(RedirectError, match="redirect loop from 'a' at 'a'"):
        chain_archive.resolve("a")


# -- threads ----------------------------------------------------------------------------------


def test_threads_searching_suggesting_and_reading_through_libzim_get_one_threads_answers(
    demo_archives: dict[str, Path],
) -> None:
    """Walkers and the service's threads call one reader at once: libzim's searches go
    one at a time (its Searcher is not thread-safe), reads go straight to its Archive."""
    reader = ZimReader(demo_archives["Wikipedia"], direct_index=False)
    queries = ["python", "multiple inheritance", "photosynthesis", "charles"]

    def ask(query: str) -> object:
        page = reader.fulltext(query, 10)
        return page, reader.suggest(query, 5), [reader.read(p)[1] for p in page.paths[:2]]

    expected = {query: ask(query) for query in queries}
    start = threading.Barrier(8, timeout=60)
    wrong: list[str] = []
    errors: list[BaseException] = []

    def work(me: int) -> None:
        try:
            start.wait()
            for round_ in range(40):
                query = queries[(me + round_) % len(queries)]
                if ask(query) != expected[query]:
                    wrong.append(query)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and wrong == []
