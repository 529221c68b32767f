"""The operations: the one table, and the operations on memories and config."""
