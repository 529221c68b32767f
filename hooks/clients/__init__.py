"""The client adapters: one module per client whose payload or output differs from the shared
default (base.py), named after the client; a client in client_table.py without a module of its
own gets the default adapter.

The same adapters run in the hook (as the top-level package `clients`, when it answers on its
own) and in the service (as memevo.hooks.clients, behind the relay hook): imports stay relative."""

import importlib

try:  # the service: memevo.hooks.clients
    from .. import client_table
except ImportError:  # the hook, run as a script: its folder is on sys.path
    import client_table

_LOADED: "dict[str, object]" = {}


def load(name: str) -> "object | None":  # typed: the service calls it
    """The client's adapter, or None for a client not in the table."""
    if name not in client_table.CLIENTS:
        return None
    if name not in _LOADED:
        try:
            module = importlib.import_module("." + name, __name__)
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            from .base import Adapter

            _LOADED[name] = Adapter(name)
        else:
            _LOADED[name] = module.ADAPTER
    return _LOADED[name]
