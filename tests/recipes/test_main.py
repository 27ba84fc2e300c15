"""``python -m recipes``: the whole tour, list, run, --base-url, --help."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from recipes import __main__ as tour_main
from recipes.catalog import RECIPES, name_of
from recipes.demo_api import DemoApi

ROOT = Path(__file__).resolve().parents[2]


def test_the_tour_runs_every_recipe_and_exits_zero() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "recipes"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for number, recipe in enumerate(RECIPES, start=1):
        assert (
            f"[{number}/{len(RECIPES)}] {name_of(recipe)}: {recipe.TITLE}"
            in done.stdout
        )
        assert f"  seed: {recipe.SEED}" in done.stdout
    assert done.stdout.rstrip().endswith(
        f"tour: {len(RECIPES)} of {len(RECIPES)} recipes ran"
    )
    assert "\x1b[" not in done.stdout  # plain when piped
    assert "  > GET " in done.stdout  # the wire is shown
    assert "100% (1,048,576 of 1,048,576 bytes)" in done.stdout  # download progress


def test_list() -> None:
    out = io.StringIO()
    assert tour_main.main(["list"], out) == 0
    names = [line.split()[0] for line in out.getvalue().splitlines()]
    assert names == [name_of(recipe) for recipe in RECIPES]


def test_run_one_recipe() -> None:
    out = io.StringIO()
    assert tour_main.main(["run", "redirects"], out) == 0
    text = out.getvalue()
    assert "[1/1] redirects" in text
    assert "'credentials': []" in text
    assert "tour: 1 of 1 recipes ran" in text


def test_run_against_another_server() -> None:
    out = io.StringIO()
    with DemoApi() as elsewhere:
        assert (
            tour_main.main(["run", "stream", "--base-url", elsewhere.origin + "/"], out)
            == 0
        )
    text = out.getvalue()
    assert f"GET 127.0.0.1:{elsewhere.main.server_address[1]}/streams/sky/" in text
    assert "Stream(username='sky'" in text


def test_an_unknown_recipe_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        tour_main.main(["run", "nope"], io.StringIO())
    assert exit_info.value.code == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--help"], ["list", "--help"], ["run", "--help"]])
def test_every_command_has_help(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        tour_main.main(argv, io.StringIO())
    assert exit_info.value.code == 0
    assert "usage: python -m recipes" in capsys.readouterr().out


def test_a_failing_recipe_fails_the_tour(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    broken = types.ModuleType("recipes.broken")
    broken.TITLE = "breaks"  # type: ignore[attr-defined]
    broken.SEED = "section 0"  # type: ignore[attr-defined]

    def run(base_url: str, tour: object) -> None:
        raise RuntimeError("boom")

    broken.run = run  # type: ignore[attr-defined]
    monkeypatch.setattr(tour_main, "RECIPES", (broken,))
    out = io.StringIO()
    assert tour_main.main([], out) == 1
    text = out.getvalue()
    assert "FAILED" in text
    assert "RuntimeError: boom" in text
    assert "tour: 0 of 1 recipes ran, 1 failed" in text
