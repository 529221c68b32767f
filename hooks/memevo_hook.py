"""The hook executable: `<python> -I -S <this file> [--home <data folder>] <client> <event>`.

Whatever happens it exits 0 and prints nothing it should not: a broken memory is
acceptable, a blocked prompt or a traceback in the user's client is not.

Kept this small on purpose: a script is compiled on every run, a module's bytecode is cached.
The work is in relay.py (the relay to the service) and, when the service cannot answer,
handler.py (the client's adapter, the service's hook.* ops, the cached texts).
"""

import sys

if __name__ == "__main__":
    # -I leaves the script's folder off sys.path; found without `os` (a millisecond of every hook)
    _cut = max(__file__.rfind("/"), __file__.rfind("\\"))
    sys.path.insert(0, __file__[:_cut] if _cut > 0 else __file__[: _cut + 1] or ".")
    import relay

    relay.run(sys.argv)
