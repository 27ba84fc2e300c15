"""Whatever restwire raises is a ``RestwireError``: wrong input and
settings too (``UsageError`` is also a ``TypeError``, ``SettingError``
also a ``ValueError``), so ``except RestwireError`` catches it all."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from restwire import Controller, RestEndpoint, RestwireError, SettingError, UsageError
from restwire.middlewares import Retry

ROOT = Path(__file__).resolve().parent.parent

#: Raises of Python's own errors that never leave restwire: checks of what
#: restwire itself stored or built, caught where they are raised.
INTERNAL = {
    ("pipeline/_cache/conversion.py", "a stored body is not a sync stream"),
    ("pipeline/_cache/conversion.py", "a stored status code is not one"),
    ("pipeline/_cache/conversion.py", "a stored header is not text"),
    ("pipeline/_cache/cached_hop.py", "unknown cache state"),
    ("pipeline/_controller/async_controller.py", "an answer ends a flow"),
    ("pipeline/_controller/sync_controller.py", "an answer ends a flow"),
}


def test_a_wrong_kind_of_argument_is_a_usage_error() -> None:
    with Controller() as controller, pytest.raises(UsageError) as caught:
        controller.fetch("/posts")  # type: ignore[arg-type]
    assert isinstance(caught.value, RestwireError)
    assert isinstance(caught.value, TypeError)
    assert "fetch() takes a RestEndpoint, not str" in str(caught.value)


@pytest.mark.parametrize(
    "make",
    [
        lambda: RestEndpoint(path="/posts/{:id"),
        lambda: RestEndpoint(path="/posts", data_expiry_length=-1),
        lambda: Retry(attempts=0),
    ],
    ids=["path", "expiry", "retry"],
)
def test_a_setting_that_cannot_work_is_a_setting_error(make: object) -> None:
    with pytest.raises(SettingError) as caught:
        make()  # type: ignore[operator]
    assert isinstance(caught.value, RestwireError)
    assert isinstance(caught.value, ValueError)


def test_no_bare_type_or_value_error_is_raised_in_restwire() -> None:
    """Every ``raise TypeError(...)`` / ``raise ValueError(...)`` in the
    package, its sub-packages included, is one of the internal checks listed
    above, and each of those is still where the list says (a list that
    matches nothing would check nothing)."""
    found = []
    matched = set()
    scanned = 0
    for folder in ("pipeline", "middlewares"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            scanned += 1
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if not isinstance(node, ast.Raise) or not isinstance(
                    node.exc, ast.Call
                ):
                    continue
                name = node.exc.func
                if not (
                    isinstance(name, ast.Name)
                    and name.id in {"TypeError", "ValueError"}
                ):
                    continue
                text = ast.unparse(node.exc.args[0]) if node.exc.args else ""
                where = path.relative_to(ROOT).as_posix()
                known = {
                    (file, part)
                    for file, part in INTERNAL
                    if where == file and part in text
                }
                matched |= known
                if not known:
                    found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    assert scanned > 60  # every module of both packages, sub-packages included
    assert not found, "\n".join(found)
    assert matched == INTERNAL, f"not found where listed: {INTERNAL - matched}"
