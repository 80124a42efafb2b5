"""TED archives: a talk is its speaker, title, description and transcript.

Through the corpus the server serves, on the demo archive (always) and the real ted2zim
3.2.1 archive of ../shared/zims/families (skipped cleanly where it is absent): a talk's
page and its subtitle files make one document, its transcript fetchable by section, in
each of its languages; a transcript phrase finds its talk through the section index
(libzim's full-text index holds no subtitle file, so without a section index only the
words of the page itself find it); title and description are said once; ``index``, the
videos and the subtitle files are no documents; a missing or corrupt subtitle file costs
its transcript, never the talk. The adapter's pure parts (tracks, companions) on top.
"""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from corpus_mcp import companions as companions_module
from corpus_mcp import refs
from corpus_mcp.adapters import get_adapter
from corpus_mcp.adapters.ted import TedAdapter, Track, tracks
from corpus_mcp.companions import COMPANION_MAX_BYTES, read_companions
from corpus_mcp.config import load_manifest
from corpus_mcp.corpus import Corpus, open_corpus
from corpus_mcp.demo import ted as demo
from corpus_mcp.document import walk
from corpus_mcp.errors import CorpusError
from corpus_mcp.sections.build import BuildJob, build_index
from corpus_mcp.zim.reader import ZimReader
from corpus_mcp.zim.writer import Page

from .conftest import SHARED_ZIMS, settings_for

REAL = SHARED_ZIMS / "families" / "ted_en_science_2026-12.zim"
FILE = "ted_en_science_2026-12.zim"
LIBRARY = "TED"


class Case:
    """What each archive says: a talk with English and French subtitles, a phrase only
    its English transcript has, and one of its French transcript."""

    def __init__(self, name: str) -> None:
        if name == "real":
            self.talk, self.video = "why-bees-dance", "98765"
            self.title, self.speaker = "Why bees dance", "Lena Moreau"
            self.phrase = "a field of clover two kilometers from the hive"
            self.french = "Vous venez de trouver un champ de trèfle"
            self.description = "decodes the waggle dance"
        else:
            first = demo.TALKS[0]
            self.talk, self.video = first.slug, first.id
            self.title, self.speaker = first.title, "Amara Okafor"
            self.phrase = "within an hour the water turns pink with eggs"
            self.french = "Chaque polype attend le même signal."
            self.description = "a whole reef spawns at once"


ARCHIVES = [
    "demo",
    pytest.param(
        "real", marks=pytest.mark.skipif(not REAL.is_file(), reason=f"real archive not at {REAL}")
    ),
]


def _manifest(root: Path) -> Path:
    manifest = root / "corpus.toml"
    manifest.write_text(
        f'version = 1\n[[library]]\nname = "{LIBRARY}"\npath = "{FILE}"\nadapter = "ted"\n',
        encoding="utf-8",
    )
    return manifest


@pytest.fixture(scope="module", params=ARCHIVES)
def archive(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the archive and a corpus.toml serving it with the adapter."""
    root = tmp_path_factory.mktemp(f"ted-{request.param}")
    if request.param == "real":
        shutil.copyfile(REAL, root / FILE)
    else:
        demo.build(root / FILE)
    return _manifest(root)


@pytest.fixture
def case(archive: Path) -> Case:
    return Case("real" if "ted-real" in archive.parent.name else "demo")


@pytest.fixture
async def corpus(archive: Path) -> AsyncIterator[Corpus]:
    settings = settings_for(archive, PARSE_WORKERS="0", INDEX="off")
    async with open_corpus(settings, load_manifest(archive, archive.parent)) as opened:
        yield opened


async def test_a_talk_is_its_speaker_title_description_and_transcripts(
    corpus: Corpus, case: Case
) -> None:
    out = await corpus.fetch(refs.encode(LIBRARY, case.talk), None)
    assert out.title == f"{case.speaker}: {case.title}"
    lead, english, french = out.sections
    assert (lead.id, lead.title) == ("", case.title)
    assert lead.content.startswith(case.speaker + " · ")
    assert lead.content.count(case.description) == 1
    assert case.title not in lead.content  # the title once: the lead's heading
    assert "About the speaker: " in lead.content
    assert (english.id, english.title) == ("transcript", "Transcript")
    assert " ".join(case.phrase.split()[-4:]) in english.content
    assert (french.id, french.title) == ("transcript-fr", "Transcript (French)")
    assert case.french in french.content
    for section in out.sections:
        assert "-->" not in section.content and "WEBVTT" not in section.content
        assert "<" not in section.content and "&amp;" not in section.content


async def test_a_transcript_is_fetched_alone_by_its_id_or_anchor(
    corpus: Corpus, case: Case
) -> None:
    by_anchor = await corpus.fetch(refs.encode(LIBRARY, case.talk, "transcript-fr"), None)
    by_id = await corpus.fetch(refs.encode(LIBRARY, case.talk), ["transcript-fr"])
    for out in (by_anchor, by_id):
        (section,) = out.sections
        assert section.id == "transcript-fr"
        assert case.french in section.content


async def test_without_a_section_index_the_page_words_find_the_talk_with_its_transcript(
    corpus: Corpus, case: Case
) -> None:
    found = await corpus.search(case.description, 5)
    assert found.results[0].ref == refs.encode(LIBRARY, case.talk)
    assert case.description in found.results[0].snippet
    # The subtitle files are outside libzim's full-text index: a phrase only the
    # transcript says is found through the section index (below), not here.
    assert all(case.talk not in r.ref for r in (await corpus.search(case.phrase, 5)).results)


async def test_the_list_videos_and_subtitles_are_no_documents(corpus: Corpus, case: Case) -> None:
    for path in (
        "index",
        f"videos/{case.video}/video.mp4",
        f"videos/{case.video}/subs/subs_en.vtt",
    ):
        with pytest.raises(CorpusError) as raised:
            await corpus.fetch(refs.encode(LIBRARY, path), None)
        assert raised.value.code == "not_found"
    # Every word of the list page and a talk's: only talk pages are results.
    found = await corpus.search(f"TED Talks {case.description}", 10)
    assert found.results
    paths = [refs.decode(r.ref, [LIBRARY]).path for r in found.results]
    assert all("/" not in path and path != "index" for path in paths)


async def test_the_section_index_finds_a_talk_by_its_transcript(archive: Path, case: Case) -> None:
    folder = archive.parent / "indexes"
    build_index(
        BuildJob(archive=archive.parent / FILE, adapter="ted", folder=folder, library=LIBRARY),
        processes=1,
    )
    settings = settings_for(archive, INDEX="auto", CORPUS_INDEX_DIR=str(folder), PARSE_WORKERS="0")
    async with open_corpus(settings, load_manifest(archive, archive.parent)) as corpus:
        assert {s.state for s in corpus.index_states().values()} == {"ready"}
        found = await corpus.search(case.phrase, 5)
        best = found.results[0]
        assert best.ref == refs.encode(LIBRARY, case.talk)
        assert best.relevant_sections[0].id == "transcript"
        assert "-->" not in best.snippet
        french = await corpus.search(case.french, 5)
        assert french.results[0].ref == refs.encode(LIBRARY, case.talk)
        assert french.results[0].relevant_sections[0].id == "transcript-fr"


async def test_a_missing_or_corrupt_subtitle_file_costs_only_its_transcript(
    tmp_path: Path,
) -> None:
    first, second = demo.TALKS
    entries = [
        Page(path=page.path, content=b"\xff\xfenot subtitles", mimetype=page.mimetype)
        if page.path == demo.subtitle_path(first, "fr")
        else page
        for page in demo.pages()
        if page.path != demo.subtitle_path(second, "en")
    ]
    demo.build(tmp_path / FILE, entries)
    manifest = _manifest(tmp_path)
    settings = settings_for(manifest, PARSE_WORKERS="0", INDEX="off")
    async with open_corpus(settings, load_manifest(manifest, tmp_path)) as corpus:
        damaged = await corpus.fetch(refs.encode(LIBRARY, first.slug), None)
        assert [s.id for s in damaged.sections] == ["", "transcript"]
        bare = await corpus.fetch(refs.encode(LIBRARY, second.slug), None)
        assert [s.id for s in bare.sections] == [""]
        assert "Ice is an archive." in bare.sections[0].content


# -- the adapter's pure parts --------------------------------------------------------------


def test_the_adapter_is_registered() -> None:
    assert isinstance(get_adapter("ted"), TedAdapter)


def test_talk_pages_are_content_and_nothing_else() -> None:
    adapter = TedAdapter()
    assert adapter.is_content("why-bees-dance", "text/html")
    assert adapter.serves("why-bees-dance")
    assert not adapter.is_content("index", "text/html")
    assert not adapter.is_content("videos/1/subs/subs_en.vtt", "text/vtt")
    assert not adapter.is_content("videos/1/video.mp4", "video/mp4")
    assert not adapter.is_content("assets/data_en.js", "text/javascript")
    assert not adapter.is_content("assets/page.html", "text/html")


def test_tracks_are_the_spoken_subtitle_files_as_archive_paths() -> None:
    html = (
        b'<video><track kind="subtitles" src="videos/1/subs/subs_en.vtt" srclang="en" '
        b"label=\"English\"/><track src='videos/1/subs/subs_fr.vtt' srclang=fr "
        b'label="fran&#231;ais - French">'
        b'<TRACK KIND="captions" SRC="./videos/1/subs/subs_en.vtt">'
        b'<track kind="chapters" src="videos/1/chapters.vtt">'
        b'<track src="https://cdn.example/subs.vtt"><track src="/abs.vtt">'
        b'<track src="../../outside.vtt"><track src=""><track srclang="de">'
        b'<track data-src="videos/1/lazy.vtt" srclang="it">'
        b'<track src="videos/1/subs/subs_pt%2DBR.vtt#x" srclang="PT_br"></video>'
    )
    assert tracks("talk", html) == [
        Track("videos/1/subs/subs_en.vtt", "en", "English"),
        Track("videos/1/subs/subs_fr.vtt", "fr", "français - French"),
        Track("videos/1/subs/subs_pt-BR.vtt", "pt-br", ""),
    ]
    assert tracks("talks/a", b'<track src="../v/s.vtt">') == [Track("v/s.vtt", "", "")]
    assert TedAdapter().companions("talk", html)[0] == "videos/1/subs/subs_en.vtt"


def test_a_talk_parsed_alone_has_no_transcript_and_other_pages_read_as_html() -> None:
    adapter = TedAdapter()
    talk = demo.TALKS[0]
    alone = adapter.parse(talk.slug, talk.title, demo.talk_page(talk).encode(), LIBRARY)
    assert [s.id for s in alone.sections] == [""]
    assert alone.metadata == {"heading": talk.title}
    other = adapter.parse(
        "about", "About", b"<html><body><h1>About</h1><p>Who we are.</p></body></html>", "L"
    )
    assert other.title == "About"
    assert "Who we are." in other.sections[0].content


def test_transcripts_in_other_languages_and_without_a_spoken_language() -> None:
    """No ``data-audio-lang``: the first transcript is the talk's; a track without a
    language or label is named by its place; a file without cues gives no section."""
    page = (
        b'<html><body><p id="speaker">A  B</p><p class="title lang-default">T</p>'
        b'<p class="title lang-fr">T fr</p>'
        b'<track src="s/de.vtt" srclang="de" label="Deutsch - German"><track src="s/x.vtt">'
        b'<track src="s/empty.vtt" srclang="es"></body></html>'
    )
    vtt = b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n"
    companions = {
        "s/de.vtt": vtt + b"Hallo.\n",
        "s/x.vtt": vtt + b"Hello.\n",
        "s/empty.vtt": b"WEBVTT\n",
    }
    document = TedAdapter().parse_with_companions("t", "T", page, LIBRARY, companions, view=True)
    assert document.title == "A B: T"
    assert [(s.id, s.title) for s in walk(document.sections)] == [
        ("", "T"),
        ("transcript", "Transcript"),
        ("transcript-1", "Transcript (other language)"),
    ]
    assert document.sections[0].passages is not None
    assert "T fr" in " ".join(p.text for p in document.sections[0].passages)


def test_companions_read_only_what_exists_within_bounds(tmp_path: Path) -> None:
    talk = demo.TALKS[0]
    big = "videos/big.vtt"
    entries = [
        *demo.pages(),
        Page(path=big, content=b"x" * (COMPANION_MAX_BYTES + 1), mimetype="text/vtt"),
    ]
    reader = ZimReader(demo.build(tmp_path / FILE, entries))

    class Naming(TedAdapter):
        def companions(self, path: str, content: bytes) -> tuple[str, ...]:
            return (path, "absent.vtt", big, *super().companions(path, content)) * 2

    found = read_companions(reader, Naming(), talk.slug, reader.content(talk.slug))
    assert sorted(found) == [demo.subtitle_path(talk, "en"), demo.subtitle_path(talk, "fr")]
    assert found[demo.subtitle_path(talk, "en")] == talk.subtitles["en"].encode()


def test_companions_past_the_limit_are_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    talk = demo.TALKS[0]
    reader = ZimReader(demo.build(tmp_path / FILE))
    monkeypatch.setattr(companions_module, "MAX_COMPANIONS", 1)
    found = read_companions(reader, TedAdapter(), talk.slug, reader.content(talk.slug))
    assert list(found) == [demo.subtitle_path(talk, "en")]


def test_a_talk_without_a_speaker_and_two_files_of_one_language() -> None:
    """The talk is titled by its title alone; a second file in a language already read
    adds no second section of the same id."""
    page = (
        b'<html><body><p class="title lang-default">T</p>'
        b'<track src="a.vtt" srclang="en"><track src="b.vtt" srclang="de">'
        b'<track src="c.vtt" srclang="de"></body></html>'
    )
    vtt = b"WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n"
    companions = {"a.vtt": vtt + b"A.\n", "b.vtt": vtt + b"B.\n", "c.vtt": vtt + b"C.\n"}
    document = TedAdapter().parse_with_companions("t", "T", page, LIBRARY, companions)
    assert document.title == "T"
    assert document.metadata == {"heading": "T"}
    assert [(s.id, s.content) for s in document.sections] == [
        ("", ""),
        ("transcript", "A."),
        ("transcript-de", "B."),
    ]
