"""memevo.installer: client registration, setup and uninstall."""
