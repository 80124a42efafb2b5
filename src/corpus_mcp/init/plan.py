"""From the archives' metadata to the manifest's libraries (pure).

Each archive becomes one library, enabled, whose adapter is its family's
(:mod:`corpus_mcp.families`: the family's own adapter where one is registered, the
generic HTML adapter otherwise, so an archive of no known family is served too). Only
another snapshot or flavour of a library that is also there (same Name: both would
answer every query twice) is listed disabled, with the reason; the newest, then the one
with the most text, is enabled and keeps the plain name, so refs stay valid across
updates. A second copy of the same archive (same UUID) is left out altogether.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import msgspec

from corpus_mcp.adapters import ADAPTERS
from corpus_mcp.families import adapter_for
from corpus_mcp.init.names import (
    Identity,
    deduplicate,
    fit_name,
    identity_of,
    sanitise,
    unique_names,
)
from corpus_mcp.init.sources import Skipped
from corpus_mcp.zim import ArchiveInfo


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One ``[[library]]`` of the manifest to write, with what its comment shows."""

    name: str
    path: str
    """Relative to the corpus root, with ``/`` separators."""
    adapter: str
    """A name registered in :data:`corpus_mcp.adapters.ADAPTERS`."""
    enabled: bool
    info: ArchiveInfo
    disabled_because: str | None = None


class Archive(msgspec.Struct, frozen=True):
    """An archive that opened: where it is and what it says about itself."""

    path: str
    info: ArchiveInfo


def _preferred_first(archives: list[Archive], identities: dict[str, Identity]) -> list[Archive]:
    """Newest snapshot first, then the flavour with the most text, then the later file
    name (``_2026-05a`` is a rebuild of ``_2026-05``)."""
    return sorted(
        archives,
        key=lambda a: (a.info.snapshot or "", identities[a.path].richness, Path(a.path).name),
        reverse=True,
    )


def plan_libraries(archives: Sequence[Archive]) -> tuple[list[Entry], list[Skipped]]:
    """The manifest's libraries, in the order given, and the duplicates left out."""
    skipped: list[Skipped] = []
    by_uuid: dict[str, Archive] = {}
    kept: list[Archive] = []
    for archive in archives:
        first = by_uuid.setdefault(archive.info.uuid, archive)
        if first is archive:
            kept.append(archive)
        else:
            skipped.append(Skipped(archive.path, f"the same archive (UUID) as {first.path}"))

    identities = {archive.path: identity_of(archive.info) for archive in kept}
    lineages: dict[str, list[Archive]] = defaultdict(list)
    for archive in kept:
        lineages[identities[archive.path].lineage].append(archive)
    newest_of: dict[str, Archive] = {}
    for members in lineages.values():
        newest = _preferred_first(members, identities)[0]
        for member in members:
            newest_of[member.path] = newest

    primaries = [archive for archive in kept if newest_of[archive.path] is archive]
    primary_names = dict(
        zip(
            (archive.path for archive in primaries),
            unique_names([identities[archive.path] for archive in primaries]),
            strict=True,
        )
    )
    wanted = [_wanted_name(a, newest_of[a.path], primary_names, identities) for a in kept]
    # Primaries keep their names; an older snapshot yields on a clash.
    order = sorted(range(len(kept)), key=lambda i: newest_of[kept[i].path] is not kept[i])
    unique = dict(zip(order, deduplicate([wanted[i] for i in order]), strict=True))

    entries = []
    for index, archive in enumerate(kept):
        newest = newest_of[archive.path]
        reason = None
        if newest is not archive:
            reason = (
                f"the same library (Name {identities[archive.path].key}) as {newest.path}, "
                f"which is enabled: this is {_variant(archive, identities)}, that "
                f"{_variant(newest, identities)}; both enabled would answer every query twice"
            )
        entries.append(
            Entry(
                name=unique[index],
                path=archive.path,
                adapter=adapter_for(archive.info.family, ADAPTERS),
                enabled=reason is None,
                info=archive.info,
                disabled_because=reason,
            )
        )
    return entries, skipped


def _variant(archive: Archive, identities: dict[str, Identity]) -> str:
    flavour = identities[archive.path].flavour
    return f"snapshot {archive.info.snapshot or 'undated'}" + (f" ({flavour})" if flavour else "")


def _wanted_name(
    archive: Archive,
    newest: Archive,
    primary_names: dict[str, str],
    identities: dict[str, Identity],
) -> str:
    if newest is archive:
        return primary_names[archive.path]
    mine, theirs = identities[archive.path], identities[newest.path]
    # The snapshot tells an older one apart; the flavour, one of the same snapshot.
    part = sanitise(mine.snapshot if mine.snapshot != theirs.snapshot else mine.flavour)
    return fit_name(primary_names[newest.path], f"-{part}" if part else "-2")
