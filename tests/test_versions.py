"""The locks agree with pyproject.toml's ranges: requirements/test.lock (what `make test` installs) lies
inside them, and requirements/oldest.lock (what `make test-oldest` installs) sits on every floor, so
each declared floor is a release a run has passed. Also the versions line every run prints."""

from __future__ import annotations

import pathlib
import re

import pytest
import torch
import transformers
from packaging.requirements import Requirement
from packaging.version import Version

from attn_widget import show_versions
from attn_widget.versions import versions

tomllib = pytest.importorskip("tomllib")  # Python 3.11+
ROOT = pathlib.Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
# What `make test-oldest` installs: the package with the extras users install and the test tools.
OLDEST_EXTRAS = ("compare", "notebook", "corpus", "test")


def requirements(extras) -> list[Requirement]:
    """The package's own requirements and those of ``extras`` (its self-references left out)."""
    found = [Requirement(r) for r in PROJECT["dependencies"]]
    for extra in extras:
        found += [Requirement(r) for r in PROJECT["optional-dependencies"][extra]]
    return [r for r in found if r.name != "attn_widget"]


def pins(lock: str) -> dict[str, Version]:
    text = (ROOT / "requirements" / lock).read_text()
    return {_name(name): Version(release) for name, release in re.findall(r"^([\w.\-]+)==(\S+)$", text, re.M)}


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_test_lock_lies_inside_the_declared_ranges():
    locked = pins("test.lock")
    for requirement in requirements((*OLDEST_EXTRAS, "dev")):  # what `make test` installs (not the bench extra)
        release = locked.get(_name(requirement.name))
        assert release is not None, f"{requirement.name} is not in requirements/test.lock: run make lock"
        assert requirement.specifier.contains(release, prereleases=True), f"{requirement} but the lock has {release}"


def test_the_oldest_lock_sits_on_every_declared_floor():
    locked = pins("oldest.lock")
    for requirement in requirements(OLDEST_EXTRAS):
        floors = [Version(spec.version) for spec in requirement.specifier if spec.operator == ">="]
        if floors:
            release = locked[_name(requirement.name)]
            assert release == floors[0], f"{requirement} but make test-oldest tests {release}: run make lock"


def test_the_versions_line_names_what_is_imported(capsys):
    found = versions()
    assert found["torch"] == torch.__version__ and found["transformers"] == transformers.__version__
    show_versions()
    printed = capsys.readouterr().out
    assert f"torch {torch.__version__}, transformers {transformers.__version__}" in printed


@pytest.mark.parametrize("lock", ["test.lock", "oldest.lock"])
def test_locks_say_how_they_were_made(lock):
    assert "make lock" in (ROOT / "requirements" / lock).read_text().splitlines()[1]
