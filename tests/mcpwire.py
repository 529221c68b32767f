"""The MCP initialize request the raw-JSON-RPC tests send first (one definition for all)."""

from __future__ import annotations

from typing import Any

INIT: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
