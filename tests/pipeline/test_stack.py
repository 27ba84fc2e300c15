from __future__ import annotations

from typing import Any

import pytest

from restwire import Stack


class Named:
    def __init__(self, name: str) -> None:
        self.name = name

    def on_request(self, exchange: Any) -> None:
        return None

    def __repr__(self) -> str:
        return f"Named({self.name!r})"


def test_a_stack_lists_its_layers_outermost_first() -> None:
    a, b, c = Named("a"), Named("b"), Named("c")
    stack = Stack(a, Stack(b, c))
    assert stack.layers == (a, b, c)
    assert list(stack) == [a, b, c]
    assert repr(stack) == "Stack(Named('a'), Named('b'), Named('c'))"
    assert len(stack.handlers) == 1  # consecutive simple layers share a frame


def test_adding_gives_a_new_stack() -> None:
    a, b = Named("a"), Named("b")
    base = Stack(a)
    assert (base + [b]).layers == (a, b)  # noqa: RUF005 (tests Stack.__add__)
    assert base.use(b).layers == (a, b)
    assert base.layers == (a,)
    assert base.use(b) == Stack(a, b)
    assert base.use(b) != Stack(b, a)


def test_a_stack_is_immutable() -> None:
    with pytest.raises(AttributeError, match="immutable"):
        Stack().layers = ()  # type: ignore[misc]


def test_an_object_without_hooks_is_not_a_middleware() -> None:
    with pytest.raises(TypeError, match="is not a middleware"):
        Stack(object())
