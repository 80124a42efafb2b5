"""Property-based fuzzing of what an agent sends: refs, tool arguments, JSON-RPC envelopes.

Whatever the input, each function answers with its result or its documented error
(``invalid_ref``, ``invalid_arguments``, a JSON-RPC error), never anything else; and
what it accepts satisfies the invariants the next layer relies on. Example counts come
from the Hypothesis profile (``TEST_PROFILE``, see ``conftest.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
from hypothesis import example, given
from hypothesis import strategies as st
from mcp_types.jsonrpc import jsonrpc_message_adapter

from corpus_mcp import refs
from corpus_mcp.config import LIBRARY_NAME_PATTERN, load_settings
from corpus_mcp.errors import CorpusError
from corpus_mcp.ranking import MAX_QUERY_CHARS, normalise_query
from corpus_mcp.server.arguments import validate_fetch, validate_search
from corpus_mcp.server.envelope import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    check_envelope,
)
from corpus_mcp.server.tools import MAX_SECTIONS

SETTINGS = load_settings({"SEARCH_LIMIT": "5", "SEARCH_MAX_LIMIT": "10"})

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)

# -- refs -----------------------------------------------------------------------------

library_names = st.from_regex(LIBRARY_NAME_PATTERN, fullmatch=True)
path_characters = st.characters(blacklist_categories=("Cc", "Cs"))
zim_paths = st.text(path_characters, min_size=1, max_size=300).filter(
    lambda path: not path.startswith("/") and not {".", ".."} & set(path.split("/"))
)


@given(library=library_names, path=zim_paths)
def test_every_zim_path_round_trips_through_a_ref(library: str, path: str) -> None:
    ref = refs.encode(library, path)
    if len(ref) > refs.MAX_REF_CHARS:
        try:
            refs.decode(ref, [library])
        except CorpusError as exc:
            assert exc.code == "invalid_ref"
        else:
            raise AssertionError("an overlong ref was accepted")
        return
    assert refs.decode(ref, [library]) == (library, path, None)
    other_case = refs.SCHEME + library.swapcase() + ref[len(refs.SCHEME) + len(library) :]
    assert refs.decode(other_case, [library]) == (library, path, None)


ref_like = st.one_of(
    json_values,
    st.text(),
    st.builds(lambda tail: "corpus://" + tail, st.text()),
    st.builds(lambda lib, tail: f"corpus://{lib}/{tail}", library_names, st.text()),
    st.builds(
        lambda tail: "corpus://wiki/" + tail,
        st.text(st.sampled_from("%/.aZ0 \x00\ud800#?é"), max_size=40),
    ),
)


@given(ref=ref_like)
def test_any_ref_decodes_or_is_an_invalid_ref(ref: Any) -> None:
    enabled, disabled = ("wiki", "docs"), ("old",)
    try:
        library, path, fragment = refs.decode(ref, enabled, disabled)
    except CorpusError as exc:
        assert exc.code == "invalid_ref"
        assert exc.message
        return
    assert library in enabled
    assert path
    assert not path.startswith("/")
    assert not {".", ".."} & set(path.split("/"))
    assert refs.decode(refs.encode(library, path, fragment), enabled) == (library, path, fragment)


# -- tool arguments -------------------------------------------------------------------

argument_keys = st.sampled_from(["query", "limit", "ref", "sections", "extra"]) | st.text(
    max_size=6
)
arguments = st.one_of(
    st.none(),
    st.dictionaries(argument_keys, json_values, max_size=4),
    st.fixed_dictionaries(
        {"query": st.text(max_size=MAX_QUERY_CHARS + 20)},
        optional={"limit": st.integers() | json_values},
    ),
    st.fixed_dictionaries(
        {"ref": st.text(max_size=2100) | json_values},
        optional={"sections": st.lists(st.text(max_size=600), max_size=70) | json_values},
    ),
)


@given(arguments)
def test_search_arguments_are_valid_or_invalid_arguments(given_arguments: Any) -> None:
    try:
        request = validate_search(given_arguments, SETTINGS)
    except CorpusError as exc:
        assert exc.code == "invalid_arguments"
        assert exc.message.startswith("Invalid arguments for search: ")
        return
    assert 1 <= len(request.query) <= MAX_QUERY_CHARS
    assert normalise_query(request.query, max_chars=len(request.query)) == request.query
    assert 1 <= request.limit <= SETTINGS.search_max_limit


@given(arguments)
def test_fetch_arguments_are_valid_or_invalid_arguments(given_arguments: Any) -> None:
    try:
        request = validate_fetch(given_arguments)
    except CorpusError as exc:
        assert exc.code == "invalid_arguments"
        assert exc.message.startswith("Invalid arguments for fetch: ")
        return
    assert isinstance(request.ref, str)
    assert 1 <= len(request.ref) <= refs.MAX_REF_CHARS
    assert request.sections is None or 1 <= len(request.sections) <= MAX_SECTIONS
    assert all(isinstance(section, str) for section in request.sections or [])


# -- JSON-RPC envelopes ---------------------------------------------------------------

ids = st.one_of(st.integers(), st.text(max_size=10), json_values)
messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.just("2.0") | json_values,
        "id": ids,
        "method": st.sampled_from(["tools/call", "tools/list", "initialize", "ping"]) | json_values,
        "params": st.fixed_dictionaries(
            {}, optional={"name": st.sampled_from(["search", "fetch"]) | json_values,
                          "arguments": json_values}
        )
        | json_values,
        "result": json_values,
        "error": json_values,
    },
)  # fmt: skip
bodies = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda value: json.dumps(value).encode()),
    messages.map(lambda message: json.dumps(message).encode()),
)


@given(bodies)
# A result beside a null "error" is a result: its null id is not an error response's.
@example(b'{"jsonrpc":"2.0","error":null,"result":{},"id":null}')
@example(b'{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"result":{},"id":null}')
def test_every_body_passes_or_gets_one_clear_json_rpc_error(body: bytes) -> None:
    problem = check_envelope(body)
    if problem is None:
        message = json.loads(body)
        # What passes reaches the SDK, whose own validation would answer with
        # pydantic's report: it must never see a message it rejects.
        try:
            jsonrpc_message_adapter.validate_python(message, by_name=False)
        except pydantic.ValidationError as exc:
            raise AssertionError(f"accepted, but the SDK rejects it: {exc}") from None
        return
    assert problem.code in (PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS)
    assert problem.message.split(":")[0] in ("Parse error", "Invalid Request", "Invalid params")
    for internal in ("pydantic", "input_value", "validation error"):
        assert internal not in problem.message
    response = problem.response()
    assert response["id"] is None or isinstance(response["id"], str | int)
    json.dumps(response)
