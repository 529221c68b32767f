"""The package list for setuptools: every package under the five source folders, as memevo.*.

The repo keeps the design's layout (core/, desktop/, hooks/, installer/, resources/) while
site-packages gets one `memevo` namespace (pyproject.toml maps `memevo` to this folder).
pyproject.toml's `packages.find` cannot prefix what it finds, so the list is computed here:
a new subpackage ships without anyone editing a list. Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

FOLDERS = ("cli", "core", "desktop", "hooks", "installer", "mcpserver", "resources")

setup(
    packages=[
        f"memevo.{name}" for name in find_packages(include=[*FOLDERS, *(f"{folder}.*" for folder in FOLDERS)])
    ]
)
