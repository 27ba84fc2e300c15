"""Settings that take a collection of names, checked where they are given.

``Retry(methods="GET")`` gives a text where a collection is meant. Taken as
one, its letters would be the names (``{"G", "E", "T"}``): the setting would
quietly mean something else, and for a list that decides who is calling
(``Sharing(sticky_cookies="BIGipServer*")``), one user's answers could reach
another. Every option that takes names asks :func:`names_of`, which refuses
a text (or bytes), anything that is not a collection, and a name that is not
text, with a :class:`~restwire.UsageError` naming the option and showing
what to write.
"""

from __future__ import annotations

from collections.abc import Collection

from .errors import UsageError

__all__ = ["names_of"]


def names_of(option: str, value: object, example: str) -> tuple[str, ...]:
    """The names ``value`` holds, given as ``option`` (``"Retry(methods=...)"``);
    ``example`` shows a right value in the message (``"('GET', 'PUT')"``)."""
    if isinstance(value, str | bytes) or not isinstance(value, Collection):
        plain = value is None or isinstance(value, str | bytes | int | float)
        shown = (
            repr(value) if plain and len(repr(value)) <= 60 else type(value).__name__
        )
        raise UsageError(
            f"{option} takes a collection of names, like {example}, not {shown}"
        )
    names = tuple(value)
    for name in names:
        if not isinstance(name, str):
            raise UsageError(
                f"{option} takes names as text, not {name!r} ({type(name).__name__})"
            )
    return names
