"""Learning: the side judge (the user's own LLM) that proposes memories, its jobs and
proposals, the confirm-and-resolve step, and whether learning is set up at all."""
