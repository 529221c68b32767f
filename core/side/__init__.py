"""Learning: the side judge, its jobs and proposals, and the resolve operation."""
