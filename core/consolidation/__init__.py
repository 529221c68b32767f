"""Consolidation: near-duplicate memories and pairs that contradict each other,
found in bulk over the vectors with a lexical check, and proposed to the user for a merge or a
replacement through the same confirmation as learning."""
