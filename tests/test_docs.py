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
from html import unescape
from pathlib import Path
from typing import Any

import pytest

import restwire
import restwire.extension
import restwire.middlewares
from recipes.demo_api import DemoApi
from tests import HTTPX
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
    monkeypatch.syspath_prepend(tmp_path)  # and modules written there import
    namespace: dict[str, Any] = {"__name__": "docs"}
    written: list[str] = []
    with DemoApi() as api:
        try:
            for number, code in enumerate(blocks(page), 1):
                code = code.replace(README_ORIGIN, api.origin)
                module = project_file(code)
                if module is not None:  # a file of the reader's project
                    (tmp_path / f"{module}.py").write_text(code, encoding="utf-8")
                    written.append(module)
                try:
                    run_example(code, namespace)
                except Exception as error:
                    error.add_note(f"in {page_id(page)}'s block {number}:\n{code}")
                    raise
                output = capsys.readouterr().out
                for comment in printed_comments(code):
                    assert shows(output, comment), f"{comment!r} not in:\n{output}"
        finally:
            for module in written:
                sys.modules.pop(module, None)


def project_file(code: str) -> str | None:
    """The module a block is a file of, if its first line names one
    (``# myapi.py``): the blocks after it may import it."""
    named = re.match(r"# (\w+)\.py\n", code)
    return named[1] if named else None


@pytest.mark.skipif(not HTTPX, reason="the page's tests use pytest-httpx")
def test_the_own_api_page_tests_pass(tmp_path: Path) -> None:
    """Its files, written into a fresh folder, and pytest run there as a
    reader would run it: every test it shows passes."""
    for code in blocks(DOCS / "own-api.md"):
        module = project_file(code)
        if module is not None:
            (tmp_path / f"{module}.py").write_text(code, encoding="utf-8")
    assert (tmp_path / "test_myapi.py").is_file()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "test_myapi.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,  # a bound on a hang: it takes 2 s
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"^3 passed", done.stdout, re.MULTILINE), done.stdout


#: An import of the recipes package, or a relative one: neither can be
#: copied into a reader's project.
IMPORTS_RECIPES = re.compile(r"^\s*(?:from|import)\s+(?:recipes\b|\.)", re.MULTILINE)


def test_no_block_imports_the_recipes_outside_their_page() -> None:
    """A block runs in a reader's project as printed (``run_example`` runs it
    as a module, so a top-level ``await`` fails there too): only the recipes
    page, which shows the files of ``recipes/``, may import from them."""
    for page in PAGES:
        if page_id(page) == "recipes.md":
            continue
        for code in blocks(page):
            found = IMPORTS_RECIPES.search(code)
            assert found is None, f"{page_id(page)}: {found[0].strip()!r}"


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
    """The testing guide's tests are in tests/recipes/test_testing_guide*.py,
    verbatim, so pytest runs what it shows."""
    guide = "".join(
        (ROOT / "tests" / "recipes" / name).read_text(encoding="utf-8")
        for name in ("test_testing_guide.py", "test_testing_guide_httpx2.py")
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
        if "\nTITLE = " in path.read_text(encoding="utf-8")
    ]
    assert sorted(shown) == sorted(tour)


def test_the_recipes_page_shows_no_import_of_the_demo() -> None:
    """What it shows of a recipe is copyable: its credentials are its own
    constants (the demo's, which the tour's run checks), not imported from
    the demo API's modules."""
    for path in sorted((ROOT / "recipes").glob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "\nTITLE = " in text:
            assert "from .demo" not in text, path.name


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


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built with ``--strict`` (a warning fails the build)."""
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed")
    built = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", built],
        cwd=ROOT,
        check=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=900,  # a bound on a hang: it takes 15 s, a minute when busy
    )
    return built


REFERENCE = [
    (restwire, "restwire"),
    (restwire.middlewares, "middlewares"),
    (restwire.extension, "extension"),
]


def reference_html(site: Path, page: str) -> str:
    return (site / "reference" / page / "index.html").read_text("utf-8")


def shown_text(html: str) -> str:
    """What a reader sees of a page: its text, tags and scripts left out."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.DOTALL)
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_mkdocs_build_strict(site: Path) -> None:
    """The site builds with no warning, and renders every public name."""
    for module, page in REFERENCE:
        html = reference_html(site, page)
        for name in module.__all__:
            assert f'id="{module.__name__}.{name}"' in html, name


#: A Sphinx role as a docstring writes it, which Markdown leaves as text.
ROLE = re.compile(r":(?:py:)?(?:class|func|meth|attr|exc|data|obj|const|mod):")
#: A private name (``_Record``, ``restwire._store``), not a dunder.
PRIVATE = re.compile(r"(?<![\w.])_(?!_)\w+|\b\w+\._(?!_)\w+")


@pytest.mark.parametrize("page", [page for _, page in REFERENCE])
def test_the_reference_shows_no_role_and_no_private_name(site: Path, page: str) -> None:
    text = shown_text(reference_html(site, page))
    assert ROLE.findall(text) == []
    assert sorted(set(PRIVATE.findall(text))) == []
    assert "BaseController" not in text  # the controllers' private base


@pytest.mark.parametrize("page", [page for _, page in REFERENCE])
def test_the_reference_speaks_to_a_python_user(site: Path, page: str) -> None:
    """The docstrings it renders, as the guides: ``data-client`` and the
    spec restwire grew from are named on the page for people coming from
    data-client alone, and JavaScript's names are not a Python user's."""
    html = reference_html(site, page)
    article = html[html.index("<article") : html.index("</article>")]  # (no nav)
    text = shown_text(article).lower()
    for word in ("data-client", "seed", "arraybuffer", "hookifyresource"):
        found = [match.start() for match in re.finditer(re.escape(word), text)]
        assert found == [], [text[max(at - 80, 0) : at + 40] for at in found]


@pytest.mark.parametrize("name", ["Controller", "AsyncController"])
def test_the_reference_shows_a_controller_whole(site: Path, name: str) -> None:
    """How to make one (its parameters) and every method, those it inherits
    from a base the reference does not show included."""
    html = reference_html(site, "restwire")
    heading = html.index(f'id="restwire.{name}"')
    signature = shown_text(html[heading : html.index("</pre>", heading)])
    for parameter in ("client", "transport", "managers", "cache", "identity"):
        assert f"{parameter}:" in signature, parameter
    for method in ("invalidate", "invalidate_all", "reset", "forget", "fetch", "get"):
        assert f'id="restwire.{name}.{method}"' in html, method


def test_the_reference_shows_how_to_make_an_endpoint(site: Path) -> None:
    html = reference_html(site, "restwire")
    heading = html.index('id="restwire.RestEndpoint"')
    signature = shown_text(html[heading : html.index("</pre>", heading)])
    assert "**options: Unpack[EndpointOptions]" in signature
    for option in ("path", "method", "error_schema", "timeout", "param_style"):
        assert f'id="restwire.EndpointOptions.{option}"' in html, option
