"""What the benchmark asks, worked out and checked in-process before any server runs.

corpus-mcp remembers three things (corpus.py): whole answers by (normalised query,
limit), each library's hits by (archive UUID, normalised query, limit), and parsed
documents by (archive UUID, path). So:

- a *new* question whose documents were read before is the question with lone
  punctuation marks added (``variant``): the normalised string differs, so both query
  caches miss, while tokenisation drops the marks, so the same documents come back. Each
  variant is checked here: one answer miss, one hits miss per library, no document parsed,
  the same refs;
- a *cold* question is one none of whose documents a server has read. The documents each
  question reads are recorded here; the questions are then split into groups in which no
  two share a document, and each group runs on a fresh server after one warm-up question
  that reads none of them (so the process's own first-call costs are not counted).

The same code with the same default settings runs in the server, so what is checked here
holds there; the benchmark also compares the refs the server answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio
from _processes import settings_env

from corpus_mcp.config import load_manifest, load_settings
from corpus_mcp.corpus import Corpus, open_corpus

LIMIT = 5
_MARKS = ("?", "!", ".", ";")


def variant(query: str, number: int) -> str:
    """``query`` with the lone punctuation marks that spell ``number`` (base 4, so every
    number gives another string) added after a space."""
    marks = []
    while True:
        number, digit = divmod(number, len(_MARKS))
        marks.append(_MARKS[digit])
        if not number:
            break
    return f"{query} {' '.join(marks)}"


@dataclass(frozen=True)
class ColdGroup:
    warm_up: str
    queries: tuple[str, ...]


@dataclass
class Plan:
    variants: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Per question, its verified variants (one per round)."""
    failed: list[str] = field(default_factory=list)
    """Variants that hit a cache, parsed a document or changed the answer, and why."""
    reads: dict[str, frozenset[tuple[str, str]]] = field(default_factory=dict)
    """Per question, the documents (archive UUID, path) it reads on an empty cache."""
    groups: list[ColdGroup] = field(default_factory=list)
    cold_checked: int = 0
    """Cold questions whose group order was replayed here without one document cached."""


def make_plan(manifest: Path, queries: Sequence[str], rounds: int) -> Plan:
    return trio.run(_plan, manifest, list(queries), rounds)


async def _plan(manifest: Path, queries: list[str], rounds: int) -> Plan:
    environ = {"CORPUS_ROOT": str(manifest.parent), "CORPUS_CONFIG": str(manifest)}
    settings = load_settings({**environ, **settings_env()})  # as its servers are
    plan = Plan()
    async with open_corpus(settings, load_manifest(manifest, manifest.parent)) as corpus:
        parsed = _record_parses(corpus)
        for query in queries:
            _clear(corpus)
            parsed.clear()
            original = await corpus.search(query, LIMIT)
            plan.reads[query] = frozenset(parsed)
            refs = [result.ref for result in original.results]
            good = []
            for number in range(1, rounds + 1):
                problem = await _check_variant(corpus, variant(query, number), refs)
                if problem:
                    plan.failed.append(f"{variant(query, number)!r}: {problem}")
                else:
                    good.append(variant(query, number))
            plan.variants[query] = tuple(good)
        plan.groups = _cold_groups(queries, plan.reads)
        plan.cold_checked = await _replay_cold(corpus, plan.groups, plan.reads, parsed)
    return plan


def _clear(corpus: Corpus) -> None:
    corpus.cache.clear()
    corpus.hits_cache.clear()
    corpus.answers_cache.clear()


def _record_parses(corpus: Corpus) -> set[tuple[str, str]]:
    """The keys of the documents put in the cache from now on (a document is put when it
    is parsed, and again when indexed for search)."""
    cache = corpus.cache
    seen: set[tuple[str, str]] = set()
    put: Callable[..., None] = cache.put

    def recording(key: tuple[str, str], value: object, size: int) -> None:
        seen.add(key)
        put(key, value, size)

    setattr(cache, "put", recording)  # noqa: B010 (an instance's method, for this process)
    return seen


async def _check_variant(corpus: Corpus, asked: str, expected: list[str]) -> str | None:
    """Why ``asked`` is not a new question over documents read before, or None."""
    documents, answers, hits = corpus.cache.misses, corpus.answers_cache, corpus.hits_cache
    answer_misses, hit_misses = answers.misses, hits.misses
    out = await corpus.search(asked, LIMIT)
    if answers.misses != answer_misses + 1:
        return "its answer was remembered"
    if hits.misses != hit_misses + len(corpus.libraries):
        return f"{hits.misses - hit_misses} of {len(corpus.libraries)} libraries searched"
    if corpus.cache.misses != documents:
        return f"{corpus.cache.misses - documents} documents not cached"
    if [result.ref for result in out.results] != expected:
        return "other documents"
    return None


def _cold_groups(
    queries: list[str], reads: dict[str, frozenset[tuple[str, str]]]
) -> list[ColdGroup]:
    """Questions in groups that share no document, each with a warm-up question that
    shares none with the group: another group's if one fits, else the group's own first
    (its members share nothing, so it fits; it is then not measured cold)."""
    members: list[list[str]] = []
    unions: list[set[tuple[str, str]]] = []
    for query in queries:
        for group, union in zip(members, unions, strict=True):
            if union.isdisjoint(reads[query]):
                group.append(query)
                union.update(reads[query])
                break
        else:
            members.append([query])
            unions.append(set(reads[query]))
    groups = []
    for group, union in zip(members, unions, strict=True):
        warm = next(
            (q for q in queries if q not in group and reads[q] and union.isdisjoint(reads[q])),
            None,
        )
        if warm is not None:
            groups.append(ColdGroup(warm, tuple(group)))
        elif len(group) > 1:
            groups.append(ColdGroup(group[0], tuple(group[1:])))
    return groups


async def _replay_cold(
    corpus: Corpus,
    groups: list[ColdGroup],
    reads: dict[str, frozenset[tuple[str, str]]],
    parsed: set[tuple[str, str]],
) -> int:
    """Each group as a fresh server runs it: how many questions parsed every document
    they read (none was cached before them) and read the same documents as alone."""
    clean = 0
    for group in groups:
        _clear(corpus)
        parsed.clear()
        await corpus.search(group.warm_up, LIMIT)
        for query in group.queries:
            cached = set(parsed)
            parsed.clear()
            await corpus.search(query, LIMIT)
            clean += parsed == reads[query] and cached.isdisjoint(parsed)
            parsed |= cached
    return clean
