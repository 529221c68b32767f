"""Repositories: their identity, the names a memory anchors in them, and staleness, through safe git."""
