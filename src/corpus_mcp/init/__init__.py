"""``corpus-mcp init``: a manifest for a folder of ZIM archives or a Kiwix library.xml.

``sources`` finds the archives, ``names`` derives readable unique library names,
``plan`` turns the archives' metadata into libraries (adapter by family, what to
disable and why), ``render`` writes the TOML with a comment per library, and
``command`` runs it all and writes the file atomically, verified by the server's own
manifest loader.
"""

from corpus_mcp.init.command import run_init, write_manifest
from corpus_mcp.init.sources import InitError

__all__ = ["InitError", "run_init", "write_manifest"]
