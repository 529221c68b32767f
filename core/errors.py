"""Errors the CLI, the service and the GUI turn into one-line messages."""


class MemevoError(Exception):
    """A refusal with a reason the user can act on. Nothing was written."""

    exit_code = 1


class NotFound(MemevoError):
    pass


class InvalidInput(MemevoError):
    pass


class StoreBusy(MemevoError):
    """Another process holds the store read-write and did not let go in time."""

    exit_code = 3
