"""The MCP surface: tool definitions, argument validation, the ASGI app and serving.

``serve`` runs the server over an open corpus (tests, scripts); ``main`` is what
``corpus-mcp serve`` calls: open the corpus, then serve until SIGTERM/SIGINT (with
``WORKERS`` > 1, in that many processes under a supervisor: ``server.workers``).
``corpus_mcp.server.stdio`` is the same server over stdin/stdout (``corpus-mcp stdio``).
``ToolHandlers.run`` is one tool call without a transport (``corpus-mcp search|fetch``).
"""

from corpus_mcp.server.app import CorpusAPI, ToolError, ToolHandlers, build_app, build_mcp_server
from corpus_mcp.server.serve import ListenError, serve
from corpus_mcp.server.tools import TOOL_NAMES, build_tools
from corpus_mcp.server.workers import main

__all__ = [
    "TOOL_NAMES",
    "CorpusAPI",
    "ListenError",
    "ToolError",
    "ToolHandlers",
    "build_app",
    "build_mcp_server",
    "build_tools",
    "main",
    "serve",
]
