"""One adapter per client. Adding a client: one adapter file here and one line below.

The same adapters run in the hook (as the top-level package `clients`, when it answers on its
own) and in the service (as memevo.hooks.clients, behind the relay hook): imports stay relative."""

import importlib

REGISTRY = {
    "claude": ".claude",
    "cursor": ".cursor",
    "codebuddy": ".codebuddy",
    "workbuddy": ".workbuddy",
}


def load(name):
    module = REGISTRY.get(name)
    if module is None:
        return None
    return importlib.import_module(module, __name__).ADAPTER
