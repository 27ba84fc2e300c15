"""The documentation site: every Python block runs, every public name is in
the API reference, and ``mkdocs build --strict`` passes.

The rule for code blocks in ``docs/``: the ```` ```python ```` blocks of a
page run in order, in one namespace of their own (a fresh one per page), so
a block may use what the blocks above it on the same page defined, and the
first block of a page stands alone. Blocks that are not Python to run
(shell commands, output) are marked ```` ```console ```` or
```` ```text ````. The examples call the demo API at
``http://127.0.0.1:8000`` as a reader who started ``python -m recipes serve
--port 8000`` would; each page gets a demo API of its own on a free port,
and that one origin is swapped in. What a ``print(...)  # ...`` line says it
prints is checked against what it printed, as in ``tests/test_readme.py``.
The recipes page shows the files of ``recipes/`` (put in at build time by
``docs_hooks.py``), which ``tests/recipes/`` runs.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import restwire
import restwire.extension
import restwire.middlewares
from recipes.demo_api import DemoApi
from tests.test_readme import README_ORIGIN, printed_comments, run_example, shows

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", flags=re.DOTALL | re.MULTILINE)


def blocks(page: Path, language: str = "python") -> list[str]:
    text = page.read_text(encoding="utf-8")
    return [code for lang, code in FENCE.findall(text) if lang == language]


def page_id(page: Path) -> str:
    return page.relative_to(DOCS).as_posix()


@pytest.mark.parametrize("page", [page for page in PAGES if blocks(page)], ids=page_id)
def test_every_python_block_runs(
    page: Path,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # a reader's own folder: files land here
    namespace: dict[str, Any] = {"__name__": "docs"}
    with DemoApi() as api:
        for number, code in enumerate(blocks(page), 1):
            try:
                run_example(code.replace(README_ORIGIN, api.origin), namespace)
            except Exception as error:
                error.add_note(f"in {page_id(page)}'s block {number}:\n{code}")
                raise
            output = capsys.readouterr().out
            for comment in printed_comments(code):
                assert shows(output, comment), f"{comment!r} not in:\n{output}"


def test_every_fence_names_its_language() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for language, _ in FENCE.findall(text):
            assert language, f"{page_id(page)}: a code block names no language"


def test_the_pages_are_all_in_the_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in PAGES:
        assert f": {page_id(page)}\n" in nav, page_id(page)


def test_data_client_is_named_on_its_own_page_only() -> None:
    for page in PAGES:
        if page.name == "from-data-client.md":
            continue
        text = re.sub(r"\]\([^)]*\)", "]", page.read_text(encoding="utf-8"))
        for word in ("data-client", "seed", "issue "):
            assert word not in text.lower(), f"{page_id(page)} says {word!r}"


def test_the_testing_guide_shows_tests_that_run() -> None:
    """The testing guide's tests are in tests/recipes/test_testing_guide.py,
    verbatim, so pytest runs what it shows."""
    guide = (ROOT / "tests" / "recipes" / "test_testing_guide.py").read_text(
        encoding="utf-8"
    )
    shown = [
        code for code in blocks(DOCS / "guides" / "testing.md") if "def test_" in code
    ]
    chunks = [chunk.strip() for code in shown for chunk in code.split("\n\n\n")]
    assert len(chunks) >= 7
    for chunk in chunks:
        assert chunk in guide, chunk


def test_the_contributing_page_runs_the_tests_as_pyproject_does() -> None:
    """It names the workers ``addopts`` asks pytest-xdist for, and its
    commands that run one test in the pytest process (``-n 0``) name tests
    that exist."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = options["tool"]["pytest"]["ini_options"]["addopts"]
    workers = re.search(r"--numprocesses=(\d+) --dist=(\w+)", addopts)
    assert workers, addopts
    text = (DOCS / "contributing.md").read_text(encoding="utf-8")
    said = f"{workers[1]} worker processes (`{workers[0]}`"
    assert said in " ".join(text.split())  # (its lines wrap anywhere)
    commands = [
        line.removeprefix("$ ")
        for code in blocks(DOCS / "contributing.md", "console")
        for line in code.splitlines()
        if line.startswith("$ pytest ")
    ]
    assert len(commands) >= 2
    for command in commands:
        assert command.split()[2:4] == ["-n", "0"], command
        path, _, name = command.split()[1].partition("::")
        assert (ROOT / path).is_file(), command
        if name:
            assert re.search(
                rf"^(async )?def {name}\(", (ROOT / path).read_text("utf-8"), re.M
            ), command


def test_the_recipes_page_shows_every_recipe() -> None:
    text = (DOCS / "recipes.md").read_text(encoding="utf-8")
    shown = re.findall(r"^<!-- recipe-source: (\w+) -->$", text, re.MULTILINE)
    tour = [
        path.stem
        for path in sorted((ROOT / "recipes").glob("*.py"))
        if "\nSEED = " in path.read_text(encoding="utf-8")
    ]
    assert sorted(shown) == sorted(tour)


def reference_names(page: str, module: str) -> list[str]:
    text = (DOCS / "reference" / page).read_text(encoding="utf-8")
    return re.findall(rf"^::: {re.escape(module)}\.(\w+)$", text, re.MULTILINE)


def test_the_api_reference_has_every_public_name() -> None:
    assert reference_names("restwire.md", "restwire") == sorted(restwire.__all__)
    assert reference_names("middlewares.md", "restwire.middlewares") == sorted(
        restwire.middlewares.__all__
    )
    assert reference_names("extension.md", "restwire.extension") == sorted(
        restwire.extension.__all__
    )


@pytest.mark.slow  # (.ci/run builds the site with --strict itself)
@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None, reason="mkdocs is not installed"
)
def test_mkdocs_build_strict(tmp_path: Path) -> None:
    """The site builds with no warning, and renders every public name."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "--site-dir",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    for module, page in [
        (restwire, "restwire"),
        (restwire.middlewares, "middlewares"),
        (restwire.extension, "extension"),
    ]:
        html = (tmp_path / "site" / "reference" / page / "index.html").read_text(
            "utf-8"
        )
        for name in module.__all__:
            assert f'id="{module.__name__}.{name}"' in html, name
