"""The memory service: one long-lived process that owns the store and the encoder.

Hooks, MCP servers, the CLI and the panel reach it over a user-only Unix socket in the data
dir, one JSON request and one JSON reply per line.
"""
