"""The MCP surface: tool definitions, argument validation, the ASGI app and serving.

``serve`` runs the server over an open corpus (tests, scripts); ``main`` is what
``corpus-mcp serve`` calls: open the corpus, then serve until SIGTERM/SIGINT.
"""

from corpus_mcp.server.app import CorpusAPI, build_app, build_mcp_server
from corpus_mcp.server.serve import ListenError, main, serve
from corpus_mcp.server.tools import TOOL_NAMES, build_tools

__all__ = [
    "TOOL_NAMES",
    "CorpusAPI",
    "ListenError",
    "build_app",
    "build_mcp_server",
    "build_tools",
    "main",
    "serve",
]
