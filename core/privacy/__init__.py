"""Privacy: secrets out of everything that leaves the machine, and the side API key."""
