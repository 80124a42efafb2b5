"""Where ``corpus-mcp init`` finds archives: a folder (searched recursively) or a Kiwix
``library.xml`` (kiwix-manage's format, book paths relative to the XML file).

The result is the corpus root (what CORPUS_ROOT must be), the archive files under it,
and what was passed over with the reason: split archives, symlinks leading out of the
root, books of the library whose file is missing. Nothing here opens an archive.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from pathlib import Path

import msgspec
from lxml import etree

SPLIT_PART = re.compile(r"^(?P<stem>.+\.zim)[a-z]{2}$", re.IGNORECASE)
"""``name.zimaa``, ``name.zimab``, ...: the parts of a split archive."""


class InitError(Exception):
    """``init`` cannot write a manifest; the message says why and what to do."""


class Skipped(msgspec.Struct, frozen=True):
    """A file (or library book) left out of the manifest, and why."""

    path: str
    reason: str


class Sources(msgspec.Struct, frozen=True, kw_only=True):
    """The archives to describe: ``files`` are absolute paths under ``root``."""

    root: Path
    files: tuple[Path, ...]
    skipped: tuple[Skipped, ...] = ()
    origin: str
    """What was searched, for messages: ``folder /x`` or ``library /x/library.xml``."""


def _shown(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when it is inside, else absolute: for messages."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _split_parts(names: list[str], folder: Path, root: Path) -> list[Skipped]:
    parts: dict[str, list[str]] = defaultdict(list)
    for name in names:
        if match := SPLIT_PART.match(name):
            parts[match["stem"]].append(name)
    return [
        Skipped(
            _shown(folder / stem, root) + "aa..",
            f"split archive ({len(found)} parts): the server opens single files; join them "
            f"first: cat {stem}?? > {stem}",
        )
        for stem, found in sorted(parts.items())
    ]


def find_in_folder(folder: Path) -> Sources:
    """Every ``*.zim`` under ``folder`` (subfolders too, sorted by path)."""
    root = folder.absolute()
    if not root.is_dir():
        raise InitError(f"{root} is not a folder; give the folder of your ZIM archives")
    real_root = root.resolve()
    files: list[Path] = []
    skipped: list[Skipped] = []
    for current, folders, names in os.walk(root):
        folders.sort()
        names.sort()
        here = Path(current)
        skipped += _split_parts(names, here, root)
        for name in names:
            if not name.lower().endswith(".zim"):
                continue
            path = here / name
            shown = _shown(path, root)
            if not path.exists():
                skipped.append(Skipped(shown, f"broken symlink to {os.readlink(path)}"))
            elif not path.resolve().is_relative_to(real_root):
                skipped.append(
                    Skipped(
                        shown,
                        f"a symlink to {path.resolve()}, outside {root}: the server opens "
                        "only archives inside CORPUS_ROOT; move or copy the file in",
                    )
                )
            elif path.is_file():
                files.append(path)
    return Sources(root=root, files=tuple(files), skipped=tuple(skipped), origin=f"folder {root}")


def _parse_library(xml: Path) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    try:
        document = etree.parse(str(xml), parser)
    except OSError as exc:
        raise InitError(f"cannot read {xml}: {exc}") from None
    except etree.XMLSyntaxError as exc:
        raise InitError(
            f"{xml} is not a valid library.xml: XML syntax error: {exc}; "
            'kiwix-manage writes <library><book path="..." .../></library>'
        ) from None
    library = document.getroot()
    if library.tag != "library":
        raise InitError(
            f"{xml}: the root element is <{library.tag}>, not <library>; "
            "expected a Kiwix library file as kiwix-manage writes it"
        )
    return library


def read_library_xml(xml: Path) -> Sources:
    """The archives a Kiwix library lists, each ``<book path=...>`` relative to the file.

    The root is the deepest folder holding every listed archive that exists.
    """
    xml = xml.absolute()
    library = _parse_library(xml)
    files: list[Path] = []
    skipped: list[Skipped] = []
    seen: set[Path] = set()
    for index, book in enumerate(library.iter("book"), start=1):
        raw = book.get("path")
        label = f"book #{index}" + (f" {book.get('id')}" if book.get("id") else "")
        if not raw:
            skipped.append(Skipped(label, "has no path attribute"))
            continue
        path = (xml.parent / raw).resolve()
        if not path.is_file():
            skipped.append(Skipped(raw, f"listed in {xml.name} ({label}) but not found at {path}"))
        elif path not in seen:
            seen.add(path)
            files.append(path)
    if not files:
        listed = "no <book> with an existing file" if skipped else "no <book> entries"
        raise InitError(f"{xml}: {listed}; nothing to describe")
    root = Path(os.path.commonpath([file.parent for file in files]))
    return Sources(root=root, files=tuple(files), skipped=tuple(skipped), origin=f"library {xml}")


def find_sources(source: Path) -> Sources:
    """A folder, or a library XML file (any ``.xml``)."""
    if source.is_dir():
        return find_in_folder(source)
    if source.suffix.lower() == ".xml":
        if not source.is_file():
            raise InitError(f"{source.absolute()} does not exist")
        return read_library_xml(source)
    if source.exists():
        raise InitError(
            f"{source.absolute()} is neither a folder nor a library .xml; give the folder of "
            "your ZIM archives or a Kiwix library.xml"
        )
    raise InitError(
        f"{source.absolute()} does not exist; give the folder of your ZIM archives "
        "(default: CORPUS_ROOT, else ./corpus) or a Kiwix library.xml"
    )
