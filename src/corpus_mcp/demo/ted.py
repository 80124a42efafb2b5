"""Demo TED archive: ted2zim 3.2.1's layout, two invented talks.

Laid out as the real archive in ``../shared/zims/families`` is (its README): each talk a
page at the root slugged from its title, with the speaker, the title and the description
twice (``lang-default`` and ``lang-en``), the video with one ``<track>`` per subtitle file,
the date and a speaker box; the transcript only as ``videos/<id>/subs/subs_<lang>.vtt``
(``text/vtt``, kept out of the full-text index as ted2zim keeps it); the video, its poster
and the speaker's picture beside it; ``index``, the list of talks a script fills from
``assets/data_<lang>.js``. The first talk has an English and a French transcript, the
second an English one only, written as the WebVTT TED's captions become (cue
identifiers, an ``&amp;``, a ``<v>`` voice tag and a ``NOTE`` block included).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Final

import msgspec

from corpus_mcp.zim.writer import Page, Redirect, write_zim

FILE: Final = "ted/ted_en_science_2026-12.zim"
MAIN_PATH: Final = "index"
METADATA: Final = {
    "Name": "ted_en_science",
    "Title": "TED talks - Science",
    "Description": "A selection of TED talks about science",
    "Language": "eng,fra",
    "Creator": "TED",
    "Publisher": "openZIM",
    "Date": "2026-12-01",
    "Scraper": "ted2zim 3.2.1",
    "Tags": "ted;science;_category:ted;ted;_videos:yes;_ftindex:yes",
}
_LABELS: Final = {"en": "English", "fr": "français - French"}
LANGUAGES: Final = tuple(_LABELS)
"""The subtitle languages of the archive (its ``Language`` metadata: ``eng,fra``)."""


class Talk(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    slug: str
    title: str
    speaker: str
    """As ted2zim writes it: first and last name joined by two spaces."""
    profession: str
    about: str
    description: str
    date: str
    subtitles: dict[str, str]
    """WebVTT text by language code."""


TALKS: Final = (
    Talk(
        id="41001",
        slug="the-secret-clocks-of-coral-reefs",
        title="The secret clocks of coral reefs",
        speaker="Amara  Okafor",
        profession="Marine biologist",
        about="Amara Okafor studies how reef animals keep time without daylight.",
        description=(
            "Once a year, on a single night, a whole reef spawns at once. Marine biologist "
            "Amara Okafor follows the moonlight and the tides to explain how corals agree on "
            "the date -- and what warming seas do to their calendar."
        ),
        date="08 March 2025",
        subtitles={
            "en": (
                "WEBVTT\n\n"
                "1\n00:00:12.100 --> 00:00:15.400\n"
                "<v Amara Okafor>Picture a reef at midnight, lit only by the moon.\n\n"
                "2\n00:00:15.600 --> 00:00:19.000\n"
                "Every polyp is waiting for the same signal.\n\n"
                "NOTE the next cue is split over two lines in the captions\n\n"
                "3\n00:00:19.200 --> 00:00:23.500\n"
                "Temperature, tides &amp; the fading light\n"
                "all tell the coral that tonight is the night.\n\n"
                "4\n00:00:30.000 --> 00:00:34.200\n"
                "Then, within an hour, the water turns pink with eggs.\n"
            ),
            "fr": (
                "WEBVTT\n\n"
                "00:00:12.100 --> 00:00:15.400\n"
                "Imaginez un récif à minuit, éclairé par la seule lune.\n\n"
                "00:00:15.600 --> 00:00:19.000\n"
                "Chaque polype attend le même signal.\n"
            ),
        },
    ),
    Talk(
        id="41002",
        slug="what-glaciers-remember",
        title="What glaciers remember",
        speaker="Ingrid  Solberg",
        profession="Glaciologist",
        about="Ingrid Solberg drills ice cores in Svalbard.",
        description=(
            "Ice is an archive. Glaciologist Ingrid Solberg reads bubbles of ancient air "
            "trapped in glaciers to show how the climate changed before anyone measured it."
        ),
        date="21 June 2024",
        subtitles={
            "en": (
                "WEBVTT\n\n"
                "00:00:09.500 --> 00:00:12.800\n"
                "Every winter, snow falls on the glacier and stays.\n\n"
                "00:00:13.000 --> 00:00:17.300\n"
                "Year after year it is pressed into ice, with tiny bubbles of old air inside.\n"
            ),
        },
    ),
)

_TALK_PAGE: Final = """<!DOCTYPE html>
<html>
    <head>
        <meta charset="utf-8">
        <title id="title-head">{title}</title>
        <link href="assets/article.css" rel="stylesheet" type="text/css">
        <script src="assets/videojs/video.min.js"></script>
        <script src="assets/article.js"></script>
    </head>
    <body>
        <div id="content">
            <img id="backtolist" src="assets/img/TED_small.png" title="Back to the list"/>
            <p id="speaker">{speaker}</p>
            <p class="title lang-default">{title}</p>
            <p class="title lang-en">{title}</p>
            <div id="video-wrapper" data-audio-lang="en">
                <video id="ted-video" class="video-js vjs-default-skin vjs-fill" controls
                    preload="auto" playsinline poster="videos/{id}/thumbnail.webp"
                    data-setup='{{"techOrder": ["html5", "ogvjs"], "autoplay": false}}'>
                    <source src="videos/{id}/video.mp4" type="video/mp4" />
                    {tracks}
                </video>
            </div>
            <div id="descriptions">
                <p class="description lang-default">{description}</p>
                <p class="description lang-en">{description}</p>
            </div>
            <div id="date">{date}</div>
            <hr>
            <div id="speaker_box_img">
                <div>
                    <img id="speaker_img" src="videos/{id}/speaker.webp">
                    <div id="speaker_info">
                        <div id="speaker_info_box">{speaker}</div>
                        <div id="speaker_info_profession">{profession}</div>
                    </div>
                    <p id="speaker_desc">{about}</p>
                </div>
            </div>
        </div>
    </body>
</html>
"""
_TRACK: Final = '<track kind="subtitles" src="{src}" srclang="{lang}" label="{label}" />'
_INDEX_PAGE: Final = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>TED Talks</title>
<script src="assets/polyfills.js"></script></head>
<body><div class="container"><img src="assets/img/TED.png" id="title-img" alt="TED"/>
<select id="language-select" aria-label="Language"><option value="en">English</option>
<option value="fr">français - French</option></select><hr/>
<div id="grid-container" style="display:block; min-height: 60vh;">
<ul id="video-items" class="rig grid"></ul></div><hr/></div>
<script src="assets/db.js"></script><script src="assets/app.js"></script>
</body></html>
"""


def subtitle_path(talk: Talk, language: str) -> str:
    """Where ted2zim stores a talk's subtitles in one language."""
    return f"videos/{talk.id}/subs/subs_{language}.vtt"


def talk_page(talk: Talk) -> str:
    """The talk's page as ted2zim's template writes it."""
    tracks = "\n".join(
        _TRACK.format(src=subtitle_path(talk, lang), lang=lang, label=escape(_LABELS[lang]))
        for lang in talk.subtitles
    )
    return _TALK_PAGE.format(
        id=talk.id,
        title=escape(talk.title),
        speaker=escape(talk.speaker),
        description=escape(talk.description),
        date=escape(talk.date),
        profession=escape(talk.profession),
        about=escape(talk.about),
        tracks=tracks,
    )


def _asset(path: str, content: str | bytes, mimetype: str) -> Page:
    return Page(path=path, content=content, mimetype=mimetype, front=False, indexed=False)


def pages(talks: tuple[Talk, ...] = TALKS) -> list[Page]:
    """Every entry of the archive but its redirects: talks, files, scripts, ``index``."""
    out = [Page(path=MAIN_PATH, title="TED Talks", content=_INDEX_PAGE)]
    for language in LANGUAGES:
        listed = [
            {"id": t.id, "slug": t.slug, "title": t.title, "speaker": t.speaker}
            for t in talks
            if language in t.subtitles
        ]
        data = "window.json_data = " + json.dumps(listed, ensure_ascii=False)
        out.append(_asset(f"assets/data_{language}.js", data, "text/javascript"))
    for talk in talks:
        out.append(Page(path=talk.slug, title=talk.title, content=talk_page(talk)))
        out.append(_asset(f"videos/{talk.id}/video.mp4", b"\x00\x00\x00\x18ftypmp42", "video/mp4"))
        out.append(_asset(f"videos/{talk.id}/thumbnail.webp", b"RIFF\x00\x00WEBP", "image/webp"))
        out += [
            _asset(subtitle_path(talk, lang), vtt, "text/vtt")
            for lang, vtt in talk.subtitles.items()
        ]
    return out


def build(path: Path, entries: list[Page] | None = None) -> Path:
    """Write the demo TED archive at ``path`` (``entries``: other pages than
    :func:`pages`' own, for tests of a damaged archive)."""
    return write_zim(
        path,
        pages=pages() if entries is None else entries,
        redirects=[Redirect(path="mainPage", target=MAIN_PATH, front=False)],
        metadata=METADATA,
        main_path=MAIN_PATH,
    )
