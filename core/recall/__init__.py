"""Recall: the input filter, the in-memory index and the gate."""
