"""corpus-mcp: an MCP server giving agents clean, fast access to offline ZIM archives."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("corpus-mcp")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+source"

__all__ = ["__version__"]
