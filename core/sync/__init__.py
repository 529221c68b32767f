"""Sync: a person's memories on every machine, through a git remote they own."""
