"""The store: the DuckDB file, its migrations, vectors, backups and repair."""
