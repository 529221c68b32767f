"""Memories: the rows, their text rules, history, trash, confidence and what reads them."""
