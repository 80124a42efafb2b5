"""What other archives ask of a page: a question thread among a search's results, when
it asks the question asked, lends its title to the pages of other libraries its answer
cites.

A Stack Exchange question is worded the way an agent asks; the documentation page its
answer points at rarely holds those words ("How do I copy a file?" answered with a link
to ``shutil.copyfile``). Links
across archives are the corpus's own word for what such a page answers (anchor and
link-source text is the strongest lexical evidence known for named-item questions:
Craswell, Hawking & Robertson, SIGIR 2001), and the web-address map
(:mod:`corpus_mcp.webmap`) already turns them into documents of the corpus.

How it ranks (:meth:`corpus_mcp.searching.Searcher.search`): a result thread whose title holds
:data:`ASKED_SHARE` of the query's weight (:func:`asks`) lends its title to the first
:data:`MAX_LENT` documents of other libraries its answer (the accepted one, else the
first listed) links to; each is read and scored as any candidate, the lent title counting
as ``inbound`` evidence (:func:`corpus_mcp.ranking.evidence.score`), never above the
thread that lends it (:func:`below_lenders`), and it is no filler
(:func:`corpus_mcp.federate.competitive`): the answer vouches for it. So the agent sees
the thread and, beside it, the page it cites, landing on the cited section.

Why at search time rather than as a field of each archive's section index: the link
crosses archives, so an index built per archive would go stale whenever the other
archive is added, removed or replaced (English Wikipedia's index takes a day to build),
and a library without an index would never gain. The cost is bounded by the search's
limit and paid only when a thread asks the question: the thread is read whole (as a
fetch of it would, and cached for it) and at most :data:`MAX_LENT` pages are read.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from typing import Final, NamedTuple

import msgspec

from corpus_mcp import refs
from corpus_mcp.assemble import WebLink, web_addresses
from corpus_mcp.document import Document, thread_answer
from corpus_mcp.federate import Candidate, Key, linked, order, rescore
from corpus_mcp.gather import Hit, Landed
from corpus_mcp.ranking.evidence import WEIGHT_TITLE, Word
from corpus_mcp.ranking.scope import Scope
from corpus_mcp.ranking.text import distinct

#: Documents of other libraries one thread lends its question to: the first its answer
#: links to (an answer names what answers first; a long one links to much besides).
MAX_LENT: Final = 3
#: How much of the query's weight a thread's title must hold to lend it: the thread asks
#: the question asked (a thread that shares a word or two answers something else).
ASKED_SHARE: Final = 0.5


def asks(candidate: Candidate) -> bool:
    """Whether a result's title asks the question asked (its title evidence, before
    weighting, holds :data:`ASKED_SHARE` of the query)."""
    return candidate.scored.title >= WEIGHT_TITLE * ASKED_SHARE


class Thread(NamedTuple):
    """A question thread among a search's best results, read whole."""

    library: str
    path: str
    document: Document
    links: Mapping[str, WebLink]
    """Its web addresses that lead into the corpus, and their refs."""


class Lent(NamedTuple):
    """A document that threads of other libraries link to, and their questions."""

    library: str
    path: str
    fragment: str | None
    titles: tuple[str, ...]
    lenders: tuple[Key, ...]
    """The threads that link to it (library, path)."""


def lent(threads: Sequence[Thread], libraries: Collection[str]) -> list[Lent]:
    """The documents the threads' answers link to in other libraries, each with the
    title of every thread that does, in the order they were first linked."""
    found: dict[tuple[str, str], Lent] = {}
    for thread in threads:
        answer = thread_answer(thread.document)
        if answer is None:
            continue
        targets: list[refs.Target] = []
        for address in web_addresses(answer.content):
            link = thread.links.get(address)
            if link is None:
                continue
            target = refs.decode(link.ref, libraries)
            if target.library == thread.library or any(
                (t.library, t.path) == (target.library, target.path) for t in targets
            ):
                continue
            targets.append(target)
            if len(targets) == MAX_LENT:
                break
        lender = (thread.library, thread.path)
        for target in targets:
            key = (target.library, target.path)
            known = found.get(key)
            if known is None:
                found[key] = Lent(*target, (thread.document.title,), (lender,))
            else:
                found[key] = known._replace(
                    titles=tuple(distinct([*known.titles, thread.document.title])),
                    lenders=(*known.lenders, lender),
                )
    return list(found.values())


def below_lenders(lent: Candidate, lenders: Sequence[Candidate], before: float) -> Candidate:
    """``lent`` scored no higher than the best thread that lends it a title, nor lower
    than it scored ``before`` (-inf: it was not among the results read): the thread asks
    the question and its answer answers it; the page it points at supports that answer.
    Without the ceiling, the title a thread lends (matched word for word, it may be the
    question itself) would lift the page above the thread that asks."""
    ceiling = max((c.scored.total for c in lenders), default=math.inf)
    if lent.scored.total <= ceiling:
        return lent
    total = max(math.nextafter(ceiling, -math.inf), before)
    return msgspec.structs.replace(lent, scored=msgspec.structs.replace(lent.scored, total=total))


class Cited(NamedTuple):
    """The cited pages as candidates, and the threads lending to each (by its key)."""

    candidates: list[Candidate]
    lenders: dict[Key, tuple[Key, ...]]


def cite(
    query: str,
    words: Sequence[Word],
    scopes: Mapping[str, Scope],
    targets: Sequence[tuple[Lent, Landed]],
    known: Mapping[Key, Candidate],
) -> Cited:
    """A candidate for each cited page (where its path lands; two paths may land on one
    page): the one the engines found, or a new one, with the lending threads' titles as
    evidence, landing where it is cited unless its engines knew better."""
    cited: dict[Key, Candidate] = {}
    lenders: dict[Key, tuple[Key, ...]] = {}
    for target, landed in targets:
        key = (target.library, landed.path)
        held = cited.get(key) or known.get(key)
        if held is None:
            hit = Hit(path=landed.path, title=landed.title, section=target.fragment)
            candidate = linked(
                query, words, scopes, library=target.library, hit=hit, inbound=target.titles
            )
        else:
            titles = tuple(distinct([*held.evidence.inbound, *target.titles]))
            if held.hit.section is None and target.fragment:
                hit = msgspec.structs.replace(held.hit, section=target.fragment)
                held = msgspec.structs.replace(held, hit=hit)
            candidate = rescore(
                query, words, held, msgspec.structs.replace(held.evidence, inbound=titles)
            )
        cited[key] = candidate
        lenders[key] = tuple(dict.fromkeys([*lenders.get(key, ()), *target.lenders]))
    return Cited(list(cited.values()), lenders)


def placed(
    best: Sequence[Candidate], cited: Sequence[Candidate], lenders: Mapping[Key, tuple[Key, ...]]
) -> list[Candidate]:
    """``best`` and the cited pages (scored on what they say and what was lent them) in
    one order, each cited page below the threads that lend to it (:func:`below_lenders`)
    unless it stood above them before anything was lent."""
    moved = {c.key for c in cited}
    before = {c.key: c.scored.total for c in best if c.key in moved}
    kept = [c for c in best if c.key not in moved]
    scored = {c.key: c for c in (*kept, *cited)}
    return order(
        [
            *kept,
            *(
                below_lenders(
                    c,
                    [scored[k] for k in lenders.get(c.key, ()) if k in scored],
                    before.get(c.key, -math.inf),
                )
                for c in cited
            ),
        ]
    )
