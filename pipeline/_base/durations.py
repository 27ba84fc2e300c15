"""Durations are seconds: a plain number that looks like milliseconds is
warned about, where it is written.

The seed counts durations in milliseconds (``pollFrequency: 2000``,
``dataExpiryLength: 60000``); restwire counts them in seconds, as Python
does. A number carried over unchanged is not an error Python could see:
``poll_frequency=2000`` polls every 33 minutes. So a plain number that is
far more likely milliseconds than seconds makes a :class:`RestwireWarning`
naming the option, what the number means in seconds and what to write for
the milliseconds case; the value is kept as given.

Where the line is drawn, and why:

- ``poll_frequency``, ``timeout``, ``error_expiry_length`` (and a poll's
  ``frequency=``): **1000 or more**. Polling every 17 minutes or more,
  waiting 17 minutes or more for a response, or holding an error that
  long before trying again are rare; 1000, 2000, 5000 and 30000 are what
  these look like in milliseconds.
- ``data_expiry_length``: **a whole multiple of 1000, from 1000 up**.
  Keeping a value for an hour (3600) or a day (86400) is ordinary, so size
  alone says nothing; but seconds people choose come in minutes and hours
  (60, 300, 3600, 86400), and milliseconds in thousands (1000, 5000,
  60000, 3600000).

A ``timedelta`` is never warned about: it says its unit. To mean a long
duration, write one (``poll_frequency=timedelta(hours=1)``).
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from typing import Any

from .errors import RestwireWarning

__all__ = ["check_seconds", "looks_like_milliseconds", "user_stacklevel"]

#: The options checked, and whether only whole thousands are warned about.
_THOUSANDS_ONLY = {
    "poll_frequency": False,
    "frequency": False,
    "timeout": False,
    "error_expiry_length": False,
    "data_expiry_length": True,
}

#: restwire's folder: frames in it are not the user's.
#: restwire's folder (this file is in ``_base/``, one below it).
_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def looks_like_milliseconds(name: str, value: object) -> bool:
    """Whether ``value``, given as the option ``name``, is a plain number
    that is more likely milliseconds than seconds (see the module)."""
    if name not in _THOUSANDS_ONLY or isinstance(value, bool):
        return False
    if not isinstance(value, int | float) or not math.isfinite(value) or value < 1000:
        return False
    return not _THOUSANDS_ONLY[name] or value % 1000 == 0


def _spoken(seconds: float) -> str:
    """``seconds`` in the largest unit that keeps it at least 1: ``"33
    minutes"``, ``"16.7 hours"``."""
    for unit, size in (("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= size:
            return f"{seconds / size:.3g} {unit}"
    return f"{seconds:g} seconds"


def check_seconds(name: str, value: object) -> None:
    """Warn (:class:`RestwireWarning`, at the user's line) if ``value``
    for the option ``name`` looks like milliseconds."""
    if not looks_like_milliseconds(name, value):
        return
    seconds = float(value)  # type: ignore[arg-type]
    meant = seconds / 1000
    spoken = _spoken(seconds)
    unit = "second" if meant == 1 else "seconds"
    warnings.warn(
        f"{name} is in seconds: {seconds:g} is {spoken}; for {meant:g} {unit} "
        f"write {meant:g} (if {spoken} is meant, write "
        f"datetime.timedelta(seconds={seconds:g}))",
        RestwireWarning,
        stacklevel=user_stacklevel(),
    )


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning raised from restwire's code
    at the first frame outside it: the line the user wrote."""
    level = 1
    frame: Any = sys._getframe(1)
    while frame is not None and _inside(frame.f_code.co_filename):
        frame = frame.f_back
        level += 1
    return level


def _inside(filename: str) -> bool:
    """Whether ``filename`` is one of restwire's (``restwire.middlewares``'
    too)."""
    folder = os.path.dirname(os.path.abspath(filename))
    return folder == _HERE or folder.startswith(_HERE + os.sep)
