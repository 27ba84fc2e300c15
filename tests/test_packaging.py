"""The wheel installs one import root, ``restwire``, and nothing else.

Builds the wheel from a copy of the checkout (no network, no build
isolation: the dev extra installs the backend) and reads its file list.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The folders the wheel maps into the import root, and where they land.
MAPPED = {"pipeline": "restwire", "middlewares": "restwire/middlewares"}


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[set[str]]:
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("pipeline", "middlewares", "recipes", "tests"):
        shutil.copytree(ROOT / folder, source / folder, ignore=ignore)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--quiet",
            "--wheel-dir",
            str(out),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = out.glob("restwire-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        yield set(archive.namelist())


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
