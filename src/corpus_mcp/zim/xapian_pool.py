"""Xapian databases lent to threads: the one way this program queries a Xapian database
from threads (the indexes of :mod:`.index`, and any index added later).

Xapian's objects are not thread-safe, and sharing them is dangerous in a way that does
not show in the code: a ``Database`` and everything made from it (``Enquire``, ``MSet``
and its items, ``Document``, ``PostingIterator``, ``TermIterator``, ``ValueIterator``...)
share the database's internals through reference counts that are plain integers
(``Xapian::Internal::intrusive_ptr``: no atomic operation, no lock), and the bindings
release the GIL in every call, destructors included. So two threads that each touch only
"their own" objects still race when both sets of objects refer to one database: one
creating an ``Enquire`` (+1 on the database's count) while the other destroys a
``Document`` of the same database (-1) can lose an update, and the database's internals
are then freed while in use (or never). A serving process died of exactly this (issue
23: the ``Enquire`` and ``Document`` objects of a search outlived its borrow of the
database, and were destroyed while another thread searched it); the stress test in
``tests/test_zim_index_threads.py`` crashed the old code that way in 20 runs of 20.

The rule, and how :meth:`DatabasePool.run` keeps it:

1. a database is used by one thread at a time: ``run`` lends it to the calling thread
   for one call of ``fn(database)`` and takes it back when ``fn`` returns;
2. every Xapian object made from it is created and destroyed inside ``fn``, in the
   borrowing thread: keep them in ``fn``'s locals (or its helpers'), which die when it
   returns, before the database goes back. Never store one anywhere else (an attribute,
   a cache, a closure that outlives ``fn``), and never let one leave ``fn``;
3. only plain data leaves: ``run`` refuses (``TypeError``) a result that is not made of
   ``None``, ``bool``, ``int``, ``float``, ``str``, ``bytes``, tuples, lists, sets and
   dicts of those, and msgspec Structs of those;
4. an exception raised inside ``fn`` would keep ``fn``'s frames, and the Xapian objects
   in their locals, alive in its traceback (a caller in another thread, the event loop,
   destroys them later): ``run`` clears those frames before the database goes back.

``xapian.Query`` objects refer to no database, but build them inside ``fn`` too: one rule
is easier to keep than one with exceptions. A ``xapian.Stem`` refers to no database
either; it keeps working state between calls, so it is shared only behind a lock
(:class:`corpus_mcp.zim.index._Stemmer`), and never copied.
"""

from __future__ import annotations

import os
import queue
import threading
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

try:  # the wheel exists for Linux only; elsewhere libzim's own search serves
    import xapian as _xapian
except ImportError:  # pragma: no cover - depends on the platform
    _xapian = None

xapian: Any = _xapian

T = TypeVar("T")

_PLAIN_SCALARS = (type(None), bool, int, float, str, bytes)
_PLAIN_CONTAINERS = (tuple, list, set, frozenset)
_SCALARS = frozenset(_PLAIN_SCALARS)
_SEQUENCES = frozenset(_PLAIN_CONTAINERS)


def open_database_at(file: str, offset: int) -> Any:
    """A Xapian database stored at ``offset`` of ``file`` (a blob inside a ZIM), on a
    descriptor of its own (Xapian takes it over and closes it with the database)."""
    fd = os.open(file, os.O_RDONLY)
    try:
        os.lseek(fd, offset, os.SEEK_SET)
        return xapian.Database(fd)
    except BaseException:
        os.close(fd)
        raise


class DatabasePool:
    """Databases of one index for threads to borrow through :meth:`run` (the module
    docstring says why nothing else may touch them).

    One database is opened at once (so a file that is no database fails here); more are
    opened when threads ask at the same time, up to ``size`` (None: no bound; with a
    bound, a thread waits for one to come back).
    """

    def __init__(self, opener: Callable[[], Any], *, size: int | None = None) -> None:
        if size is not None and size < 1:
            raise ValueError("a pool holds at least one database")
        self._open = opener
        self._size = size
        self._idle: queue.Queue[Any] = queue.Queue()
        self._opened = 1
        self._opening = threading.Lock()
        # Idle from the start: taking it from the queue is atomic, unlike a check of a
        # "first" attribute followed by clearing it, which let two threads take one.
        self._idle.put(opener())

    @property
    def opened(self) -> int:
        """How many databases the pool has opened."""
        return self._opened

    def run(self, fn: Callable[[Any], T]) -> T:
        """``fn(database)`` with a database no other thread holds meanwhile, and what
        it returns, which must be plain data (see the module docstring).

        Every Xapian object ``fn`` made is gone by the time the database goes back: its
        locals died when it returned; when it raised, the frames its exception holds are
        cleared first. Exceptions propagate (``xapian.Error`` too: the caller decides
        what they mean).
        """
        database = self._take()
        try:
            return _lent(fn, database)
        finally:
            self._idle.put(database)
            del database

    def _take(self) -> Any:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._opening:
            may_open = self._size is None or self._opened < self._size
            if may_open:
                self._opened += 1
        if not may_open:
            return self._idle.get()
        try:
            return self._open()
        except BaseException:
            with self._opening:
                self._opened -= 1
            raise


def _lent(fn: Callable[[Any], T], database: Any) -> T:
    """``fn(database)``, its result checked, its exception's frames cleared."""
    try:
        result = fn(database)
    except BaseException as exc:
        clear_frames(exc)
        del database  # the traceback keeps this frame: it holds no database either
        raise
    if not _plain(result):
        kind = type(result).__name__
        del result  # not kept alive by the TypeError's traceback, past the borrow
        raise TypeError(
            f"{_name(fn)} returned a {kind} holding something other than plain data: "
            "no Xapian object may leave its borrow"
        )
    return result


def _name(fn: Callable[..., Any]) -> str:
    inner = getattr(fn, "func", fn)  # functools.partial
    return str(getattr(inner, "__qualname__", repr(inner)))


def clear_frames(exc: BaseException) -> None:
    """Drop the locals of every finished frame ``exc`` (and what it was raised from or
    during) holds, so that the native objects in them die now, in this thread; frames
    still running (the callers') are left alone."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        traceback.clear_frames(current.__traceback__)
        todo += [current.__cause__, current.__context__]
        if isinstance(current, BaseExceptionGroup):
            todo += current.exceptions


def _plain(value: object) -> bool:
    """Whether ``value`` is made of plain data only (nothing a native library made).

    Exact types first: this runs on every result (25 hits: ~20 us)."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind in _SEQUENCES:
        return all(map(_plain, value))  # type: ignore[call-overload]
    if isinstance(value, msgspec.Struct):
        return all(map(_plain, msgspec.structs.astuple(value)))
    if isinstance(value, dict):
        return all(map(_plain, value)) and all(map(_plain, value.values()))
    if isinstance(value, _PLAIN_SCALARS):  # subclasses (an IntEnum, a str subclass)
        return True
    return isinstance(value, _PLAIN_CONTAINERS) and all(map(_plain, value))
