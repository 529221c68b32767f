"""The MCP server: a stdio server per client, a thin client of the memory service."""
