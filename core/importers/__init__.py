"""Importers: what the user already wrote (notes files, the Node tool's data) as candidates."""
