"""One adapter per client. Adding a client: one adapter file here and one line below."""

import importlib

REGISTRY = {
    "claude": "clients.claude",
    "cursor": "clients.cursor",
    "codebuddy": "clients.codebuddy",
    "workbuddy": "clients.workbuddy",
}


def load(name):
    module = REGISTRY.get(name)
    if module is None:
        return None
    return importlib.import_module(module).ADAPTER
