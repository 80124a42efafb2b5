"""Container health probe: exit 0 when ``/healthz`` answers 200 with status "ok".

Runs inside the image with the venv's Python (no curl or shell needed), as the compose
healthcheck. The server always listens on MCP_PORT (8000) inside the container.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request

TIMEOUT_SECONDS = 4.0


def healthy(url: str) -> bool:
    """True when ``url`` answers 200 with a JSON body whose status is "ok"."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:
            body = json.loads(response.read())
    except (OSError, ValueError) as exc:
        print(f"unhealthy: {exc}", file=sys.stderr)
        return False
    if not isinstance(body, dict) or body.get("status") != "ok":
        print(f"unhealthy: {body!r}", file=sys.stderr)
        return False
    return True


def main() -> int:
    port = os.environ.get("MCP_PORT", "").strip() or "8000"
    return 0 if healthy(f"http://127.0.0.1:{port}/healthz") else 1


if __name__ == "__main__":
    sys.exit(main())
