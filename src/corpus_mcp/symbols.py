"""API symbols of a documentation library, found by full name or by a trailing part of it.

DevDocs names entries the way the documented language does, fully qualified
(``db.models.query.QuerySet.select_related()``, ``std::vector::push_back``), while
agents write the short forms they use in code (``QuerySet.select_related``,
``select_related``, ``vector::push_back``). So every symbol is found by its full name
and by each trailing run of its ``.``/``::``-separated parts. Several symbols may share
a name or a tail (``Model.save`` in two pages): all of them are kept, up to a bound,
and ranking decides between them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

import msgspec

from corpus_mcp.adapters import symbol_key
from corpus_mcp.adapters.base import Landing
from corpus_mcp.ranking.query import is_identifier

#: Symbols kept per name or tail: enough for overloads, not for a generic tail.
MAX_PER_KEY = 8
#: A tail match is a little less sure than the full name.
TAIL_FACTOR = 0.8
#: A symbol named by the trailing part of what the query writes (its qualifier being a
#: variable or an alias the archive does not know) is less sure still.
QUALIFIED_FACTOR = 0.7
_SEPARATOR = re.compile(r"(::|\.)")
# A kind in parentheses closing a name, as DevDocs writes Django's: "(setting)".
_QUALIFIER = re.compile(r"\s+\([a-z][a-z ]*\)$")


class Symbol(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A symbol's page, anchor and name, and the page's entry title."""

    name: str
    path: str
    section: str | None
    title: str


class SymbolMatch(msgspec.Struct, frozen=True, kw_only=True):
    symbol: Symbol
    strength: float
    named_by: str
    """The text of the query that names the symbol."""


class SymbolTable:
    """Full names and trailing parts -> symbols (built once per archive)."""

    def __init__(self, symbols: Iterable[Symbol] = ()) -> None:
        self._full: dict[str, list[Symbol]] = {}
        self._tails: dict[str, list[Symbol]] = {}
        for symbol in symbols:
            key = symbol_key(symbol.name)
            _add(self._full, key, symbol)
            for tail in _tails(key):
                _add(self._tails, tail, symbol)
            # DevDocs qualifies names by kind: "ALLOWED_HOSTS (setting)", "date (template
            # filter)"; an agent writes the name alone.
            bare = _QUALIFIER.sub("", key)
            if bare != key and bare:
                _add(self._full, bare, symbol)

    def __len__(self) -> int:
        return sum(len(found) for found in self._full.values())

    def symbols(self) -> list[Symbol]:
        """Every symbol, by name."""
        return [symbol for key in sorted(self._full) for symbol in self._full[key]]

    def lookup(self, candidates: Iterable[tuple[str, float]]) -> list[SymbolMatch]:
        """Symbols named by ``(text, strength)`` candidates, strongest first; a symbol
        found several ways keeps its best strength."""
        best: dict[tuple[str, str, str | None], SymbolMatch] = {}
        if not self._full:
            return []
        for text, strength in candidates:
            key = symbol_key(text)
            ways = [(self._full.get(key), 1.0)]
            if is_identifier(text):
                # A plain word ("json") as the tail of a symbol ("flask.json") says
                # little; code-shaped text ("QuerySet.filter", "select_related") does.
                ways.append((self._tails.get(key), TAIL_FACTOR))
                if not any(found for found, _ in ways):
                    ways = self._qualified(key)
            for found, factor in ways:
                for symbol in found or ():
                    ident = (symbol.name, symbol.path, symbol.section)
                    match = SymbolMatch(symbol=symbol, strength=strength * factor, named_by=text)
                    if ident not in best or best[ident].strength < match.strength:
                        best[ident] = match
        return sorted(best.values(), key=lambda m: (-m.strength, m.symbol.name, m.symbol.path))

    def _qualified(self, key: str) -> list[tuple[list[Symbol] | None, float]]:
        """For code naming no symbol as written: the longest trailing part of it that
        does (code calls through a variable or an alias the archive does not know:
        ``df.merge``, ``pd.read_csv``, ``self.assertEqual``), less surely."""
        for tail in _tails(key):
            ways = [
                (self._full.get(tail), QUALIFIED_FACTOR),
                (self._tails.get(tail), QUALIFIED_FACTOR * TAIL_FACTOR),
            ]
            if any(found for found, _ in ways):
                return ways
        return []


def build_table(
    landings: Iterable[tuple[str, Landing]], titles: Mapping[str, str | None]
) -> SymbolTable:
    """The table of ``(name, landing)`` symbols whose page has an entry title (symbols
    of pages missing from the archive are left out)."""
    symbols = []
    for name, landing in landings:
        title = titles.get(landing.path)
        if title is not None:
            symbols.append(
                Symbol(name=name, path=landing.path, section=landing.section, title=title)
            )
    return SymbolTable(symbols)


def _add(index: dict[str, list[Symbol]], key: str, symbol: Symbol) -> None:
    found = index.setdefault(key, [])
    if len(found) < MAX_PER_KEY and symbol not in found:
        found.append(symbol)


def _tails(key: str) -> list[str]:
    """``a.b.c`` -> ``b.c``, ``c``; ``std::vector::at`` -> ``vector::at``, ``at``."""
    pieces = _SEPARATOR.split(key)
    # pieces alternate name, separator, name...; tails start at every name after the first.
    return ["".join(pieces[i:]) for i in range(2, len(pieces), 2) if pieces[i]]
