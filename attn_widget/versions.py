"""The releases attn_widget runs with, for bug reports, test runs and benchmark tables.

>>> import attn_widget
>>> attn_widget.show_versions()  # paste this into a bug report
"""

from __future__ import annotations

import platform
import sys
from importlib import metadata

# The dependencies whose release changes what attn_widget computes or draws, in the order they are reported.
PACKAGES = ("attn_widget", "torch", "transformers", "numpy", "numba", "anywidget", "traitlets")


def versions() -> dict[str, str]:
    """``{"python": "3.11.7", "torch": "2.13.0+cpu", ...}``: each package's release, as the imported module
    reports it (torch's says which build: ``+cpu``, ``+cu121``), else as installed ("absent" if neither)."""
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        module = sys.modules.get(name)
        try:
            found[name] = getattr(module, "__version__", None) or metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "absent"
    return found


def versions_line() -> str:
    """One line: ``python 3.11.7, attn_widget 0.1.0, torch 2.13.0+cpu, transformers 5.25.0, ...``."""
    return ", ".join(f"{name} {release}" for name, release in versions().items())


def show_versions() -> None:
    """Print the platform and the releases attn_widget runs with (paste it into a bug report)."""
    print(platform.platform())
    print(versions_line())
