"""The JSON-RPC envelope of a POST to ``/mcp``, checked before the SDK sees it.

The SDK validates messages with pydantic and answers a malformed one with the whole
validation report (model names, ``input_value=...``, links to pydantic's site), and
it takes a request whose ``id`` is ``null`` or an object for a notification: ``202``
and no answer. MCP requires a string or integer id. This check names what is wrong
in one sentence an agent or a developer can act on; anything that passes goes to the
SDK unchanged.
"""

from __future__ import annotations

from typing import Any

import msgspec

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

RequestId = str | int


class EnvelopeError(msgspec.Struct, frozen=True):
    """Why a body is not one acceptable JSON-RPC message, and the id to answer with."""

    code: int
    message: str
    id: RequestId | None = None

    def response(self) -> dict[str, Any]:
        """The JSON-RPC error response (``id`` is ``null`` when the request's is unusable)."""
        return {
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        }


def _kind(value: object) -> str:
    """How a JSON value is named in a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, float):
        return "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    return "a number"


def _valid_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _usable_id(value: object) -> RequestId | None:
    """The id to answer with: the request's own when valid, else ``null``."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def check_envelope(body: bytes) -> EnvelopeError | None:
    """``None`` when ``body`` is one well-formed JSON-RPC message, else the error to answer."""
    try:
        message = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError) as exc:
        detail = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return EnvelopeError(PARSE_ERROR, f"Parse error: the body is not valid JSON ({detail})")
    if not isinstance(message, dict):
        batch = " (batches are not supported)" if isinstance(message, list) else ""
        return EnvelopeError(
            INVALID_REQUEST,
            f"Invalid Request: the body must be one JSON-RPC message object, not "
            f"{_kind(message)}{batch}",
        )
    has_id = "id" in message
    request_id = message.get("id")
    answer_id = _usable_id(request_id)
    if message.get("jsonrpc") != "2.0":
        return EnvelopeError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"', answer_id)
    if "method" not in message:
        return _check_response(message, has_id, request_id)
    method = message["method"]
    if not isinstance(method, str) or not method:
        return EnvelopeError(
            INVALID_REQUEST, 'Invalid Request: "method" must be a non-empty string', answer_id
        )
    if has_id and not _valid_id(request_id):
        return EnvelopeError(
            INVALID_REQUEST,
            f'Invalid Request: "id" must be a string or an integer, not {_kind(request_id)} '
            '(leave "id" out only for a notification)',
        )
    params = message.get("params")
    if params is not None and not isinstance(params, dict):
        return EnvelopeError(
            INVALID_REQUEST,
            f'Invalid Request: "params" must be an object, not {_kind(params)}',
            answer_id,
        )
    if method == "tools/call" and has_id:
        return _check_tool_call(params or {}, answer_id)
    return None


def _check_response(
    message: dict[str, Any], has_id: bool, request_id: object
) -> EnvelopeError | None:
    """A message without ``method`` must be a response to a server request."""
    answer_id = _usable_id(request_id)
    if "result" in message:
        if not isinstance(message["result"], dict):
            return EnvelopeError(
                INVALID_REQUEST,
                f'Invalid Request: a response\'s "result" must be an object, not '
                f"{_kind(message['result'])}",
                answer_id,
            )
    elif "error" in message:
        error = message["error"]
        code = error.get("code") if isinstance(error, dict) else None
        if not (isinstance(code, int) and not isinstance(code, bool)) or not isinstance(
            error.get("message"), str
        ):
            return EnvelopeError(
                INVALID_REQUEST,
                'Invalid Request: a response\'s "error" must be an object with an integer '
                '"code" and a string "message"',
                answer_id,
            )
    else:
        return EnvelopeError(
            INVALID_REQUEST,
            'Invalid Request: "method" is missing (a request needs "jsonrpc", "id" and "method")',
            answer_id,
        )
    # An error response may carry a null id (it answers a request that had none); a
    # result never does, even beside an "error" key, which then goes unread.
    is_error = "result" not in message
    if not has_id or not (_valid_id(request_id) or (request_id is None and is_error)):
        return EnvelopeError(
            INVALID_REQUEST,
            f'Invalid Request: a response\'s "id" must be a string or an integer, not '
            f"{_kind(request_id) if has_id else 'missing'}",
        )
    return None


def _check_tool_call(params: dict[str, Any], answer_id: RequestId | None) -> EnvelopeError | None:
    """``tools/call`` names a tool and passes its arguments as an object."""
    name = params.get("name")
    if not isinstance(name, str) or not name:
        shown = "missing" if name is None else f"{_kind(name)}, not a tool name"
        return EnvelopeError(
            INVALID_PARAMS,
            f'Invalid params: tools/call needs "name", the tool to call ("search" or "fetch"); '
            f"it is {shown}",
            answer_id,
        )
    arguments = params.get("arguments")
    if arguments is not None and not isinstance(arguments, dict):
        return EnvelopeError(
            INVALID_PARAMS,
            f'Invalid params: "arguments" must be an object of the tool\'s arguments, not '
            f"{_kind(arguments)}",
            answer_id,
        )
    return None
