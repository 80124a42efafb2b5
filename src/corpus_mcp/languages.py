"""Which Snowball stemmer a language's words are stemmed with (a leaf: anyone may call it).

ZIM archives name their language in ISO 639-3 (``Language`` metadata: ``eng``, ``fra``,
or several joined by commas: ``eng,fra``); libzim's indexer picks Xapian's stemmer from
the same code, and the section index picks PyStemmer's (both are Snowball's algorithms,
under the same names).
"""

from __future__ import annotations

from typing import Final

#: ISO 639-3 (and the older bibliographic codes archives still carry) -> Snowball name,
#: for every language both Xapian 1.4 and PyStemmer stem.
STEMMERS: Final = {
    "ara": "arabic", "hye": "armenian", "arm": "armenian", "eus": "basque",
    "baq": "basque", "cat": "catalan", "dan": "danish", "nld": "dutch", "dut": "dutch",
    "eng": "english", "fin": "finnish", "fra": "french", "fre": "french",
    "deu": "german", "ger": "german", "hun": "hungarian", "ind": "indonesian",
    "gle": "irish", "ita": "italian", "lit": "lithuanian", "nep": "nepali",
    "nor": "norwegian", "nob": "norwegian", "nno": "norwegian", "por": "portuguese",
    "ron": "romanian", "rum": "romanian", "rus": "russian", "spa": "spanish",
    "swe": "swedish", "tam": "tamil", "tur": "turkish",
}  # fmt: skip


def stemmer_name(language: str | None) -> str | None:
    """The Snowball stemmer for an archive's ``Language`` (its first language when it
    names several), or None when there is none for it (words are then kept whole)."""
    if not language:
        return None
    first = language.split(",")[0].strip().lower()
    return STEMMERS.get(first)
