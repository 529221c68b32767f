"""memevo.hooks: stdlib-only hook executables, run as `python -I -S <path> <client> <event>`."""
