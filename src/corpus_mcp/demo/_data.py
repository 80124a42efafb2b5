"""The demo archives' content, read from the package's ``data/`` files.

What a fixture *is* (articles, DevDocs pages, Stack Exchange threads, metadata) lives in
JSON and HTML files shipped with the package, so ``make run`` builds the demo corpus from
an installed package too; the family modules only lay that content out as each scraper
does. ``msgspec`` decodes the JSON straight into the renderers' dataclasses, so a file
that does not match them fails loudly, naming the field.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from typing import TypeVar

import msgspec

T = TypeVar("T")


def _file(relative: str) -> Traversable:
    return files("corpus_mcp.demo").joinpath("data", *relative.split("/"))


def load(relative: str, shape: type[T]) -> T:
    """The JSON file at ``data/<relative>`` decoded as ``shape``."""
    return msgspec.json.decode(_file(relative).read_bytes(), type=shape)


def text(relative: str) -> str:
    """The UTF-8 file at ``data/<relative>``, byte for byte (no newline translation)."""
    return _file(relative).read_bytes().decode("utf-8")
