"""``python -m corpus_mcp``: the same as the ``corpus-mcp`` command."""

from corpus_mcp.cli import main

raise SystemExit(main())
