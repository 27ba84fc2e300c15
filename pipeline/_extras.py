"""Optional dependencies: imported where a feature is made, or one error
that says what to install.

restwire's own dependencies are few (httpx, multidict, anyio, msgspec, sniffio);
each feature that needs more names an *extra* in ``pyproject.toml``
(``pip install "restwire[cache]"``). A feature imports its package with
:func:`require` when the user makes it (``HttpCache.sqlite()``,
``RateLimit(redis=...)``, an endpoint with a model schema), so a missing
package is a :class:`MissingExtra` there, naming the feature, the package
and the command that installs it, rather than a bare ``ModuleNotFoundError``
at the first call, deep inside a request.

A package that is installed but fails to import (a broken install, one of
its own dependencies missing) is a :class:`MissingExtra` too, saying so,
with the import's error as its ``__cause__``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ._errors import RestwireError

__all__ = ["EXTRAS", "MissingExtra", "require"]

#: Each extra of ``pyproject.toml`` that brings a module restwire imports
#: lazily, and that module's distribution name (the package pip installs).
EXTRAS: dict[str, tuple[str, str]] = {
    "hishel": ("cache", "hishel"),
    "redis": ("redis", "redis"),
    "pydantic": ("models", "pydantic"),
    "opentelemetry": ("otel", "opentelemetry-api"),
    "httpx2": ("httpx2", "httpx2"),
    "aiohttp": ("fast", "aiohttp"),
}


class MissingExtra(RestwireError, ImportError):
    """A feature needs a package that is not installed (or cannot be
    imported): the message names the feature, the package and the extra
    to install. ``feature``, ``package`` and ``extra`` say the same as
    attributes; ``name`` (``ImportError``'s) is the module."""

    def __init__(
        self, feature: str, module: str, *, broken: ImportError | None = None
    ) -> None:
        extra, package = EXTRAS[module]
        self.feature = feature
        self.package = package
        self.extra = extra
        install = f'pip install "restwire[{extra}]"'
        if broken is None:
            text = f"{feature} needs {package}, which is not installed: {install}"
        else:
            text = (
                f"{feature} needs {package}, which is installed but cannot be "
                f"imported ({broken}); reinstall it: {install}"
            )
        super().__init__(text, name=module)


def require(
    module: str, feature: str, *, error: type[MissingExtra] = MissingExtra
) -> ModuleType:
    """``module`` (a key of :data:`EXTRAS`), imported; a :class:`MissingExtra`
    (or the subclass ``error``) naming ``feature`` (what the user made:
    ``"HttpCache.sqlite()"``) if it is not installed or cannot be imported."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as failure:
        if failure.name is not None and failure.name.partition(".")[0] == module:
            raise error(feature, module) from None
        raise error(feature, module, broken=failure) from failure
    except ImportError as failure:
        raise error(feature, module, broken=failure) from failure
