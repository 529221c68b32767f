"""memevo core: the memory model, its store and the rules that evolve it. Never imports Qt."""

__version__ = "0.1.0"
