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


class StoreDamaged(MemevoError):
    """The store's file or its write-ahead log cannot be read: `memevo repair` brings it back."""

    exit_code = 4
    REMEDY = "run `memevo repair` (it keeps a copy of the damaged files, then saves what it can)"

    def __init__(self, detail: str) -> None:
        self.detail = detail
        if detail.startswith("the memory store is damaged"):  # already said in full (from the service)
            super().__init__(detail)
        else:
            super().__init__(f"the memory store is damaged ({detail}); {self.REMEDY}")
