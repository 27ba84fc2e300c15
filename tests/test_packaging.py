"""The package as an index takes it: one import root, ``restwire``, and
metadata ``twine check`` passes.

Builds the sdist and, from it, the wheel with ``python -m build`` from a
copy of the checkout (no network, no build isolation: the dev extra
installs the backend, build and twine), then reads their file lists and
metadata and runs ``twine check --strict`` on both.
"""

from __future__ import annotations

import email
import email.message
import importlib.metadata
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import restwire

ROOT = Path(__file__).resolve().parent.parent
#: The folders the wheel maps into the import root, and where they land.
MAPPED = {"pipeline": "restwire", "middlewares": "restwire/middlewares"}
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]


@dataclass(frozen=True)
class Dist:
    """The built wheel and sdist."""

    wheel: Path
    sdist: Path

    def wheel_files(self) -> set[str]:
        with zipfile.ZipFile(self.wheel) as archive:
            return set(archive.namelist())

    def sdist_files(self) -> set[str]:
        with tarfile.open(self.sdist) as archive:
            return {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}

    def metadata(self) -> email.message.Message:
        with zipfile.ZipFile(self.wheel) as archive:
            (name,) = [
                n for n in archive.namelist() if n.endswith(".dist-info/METADATA")
            ]
            return email.message_from_string(archive.read(name).decode("utf-8"))


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE", "MANIFEST.in"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("pipeline", "middlewares", "recipes", "tests"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            "--outdir",
            str(out),
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = out.glob("restwire-*.whl")
    (sdist,) = out.glob("restwire-*.tar.gz")
    return Dist(wheel, sdist)


@pytest.fixture(scope="module")
def wheel_files(dist: Dist) -> set[str]:
    return dist.wheel_files()


def test_twine_check_passes_on_the_wheel_and_the_sdist(dist: Dist) -> None:
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "twine",
            "check",
            "--strict",
            str(dist.wheel),
            str(dist.sdist),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2, checked.stdout


def test_the_metadata_says_what_an_index_shows(dist: Dist) -> None:
    metadata = dist.metadata()
    assert metadata["Name"] == "restwire"
    assert metadata["Version"] == PYPROJECT["version"]
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert "dist-info/licenses/LICENSE" in "\n".join(dist.wheel_files())
    urls = dict(each.split(", ", 1) for each in metadata.get_all("Project-URL") or [])
    assert set(urls) == {"Homepage", "Documentation", "Source", "Issues"}
    classifiers = set(metadata.get_all("Classifier") or [])
    for wanted in (
        "Programming Language :: Python :: 3.11",
        "Programming Language :: Python :: 3.12",
        "Programming Language :: Python :: 3.13",
        "Typing :: Typed",
        "Framework :: AsyncIO",
        "Topic :: Internet :: WWW/HTTP",
    ):
        assert wanted in classifiers
    # the long description is the README, whole
    readme = (ROOT / "README.md").read_text("utf-8")
    description = metadata.get_payload()
    assert isinstance(description, str)
    assert description.strip() == readme.strip()
    extras = set(metadata.get_all("Provides-Extra") or [])
    assert set(PYPROJECT["optional-dependencies"]) == extras


def test_the_sdist_holds_what_builds_the_wheel_and_no_more(dist: Dist) -> None:
    files = dist.sdist_files()
    assert {"pyproject.toml", "README.md", "LICENSE", "PKG-INFO"} <= files
    assert "pipeline/__init__.py" in files
    assert "middlewares/py.typed" in files
    assert not [name for name in files if name.startswith(("recipes/", "tests/"))]


def test_version_is_the_installed_distributions() -> None:
    assert restwire.__version__ == importlib.metadata.version("restwire")
    assert restwire.__version__ == PYPROJECT["version"]


def test_readme_tables_every_extra_with_its_install_command() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    table = readme[readme.index("| extra |") :]
    table = table[: table.index("\n\n")]
    named = re.findall(r"^\| `(\w+)` \|", table, flags=re.MULTILINE)
    assert sorted(named) == sorted(PYPROJECT["optional-dependencies"])


def test_the_only_top_level_package_is_restwire(wheel_files: set[str]) -> None:
    top = {name.split("/", 1)[0] for name in wheel_files}
    assert {name for name in top if not name.endswith(".dist-info")} == {"restwire"}


def test_every_library_module_is_in_the_wheel_under_restwire(
    wheel_files: set[str],
) -> None:
    for folder, package in MAPPED.items():
        for path in (ROOT / folder).glob("*.py"):
            assert f"{package}/{path.name}" in wheel_files, path
        assert f"{package}/py.typed" in wheel_files


def test_recipes_and_tests_are_not_installed(wheel_files: set[str]) -> None:
    assert not [name for name in wheel_files if name.startswith(("recipes/", "tests/"))]
    assert not [name for name in wheel_files if "/recipes/" in name]
