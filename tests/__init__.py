"""corpus-mcp tests (a package, so test modules can share helpers from conftest)."""
