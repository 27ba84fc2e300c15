"""What a forked child starts over with.

``os.fork()`` copies every lock in the state it is in, and only the thread
that forked. A lock another thread of the parent held (a token refresh, a
store write) is held forever in the child, and a call in flight on such a
thread never lands there: the child's next call of the same request waited
on it without end. Each object that keeps such a lock, or such calls,
registers here (:func:`renewed_in_child`); in a forked child its locks are
made new and its own ``abandon`` step, if it names one, drops what the
parent's threads were doing. What it registers is held weakly: an object
nobody uses is freed as before. (``os.register_at_fork``: POSIX; elsewhere
there is no fork.)
"""

from __future__ import annotations

import os
import threading
import weakref

__all__ = ["renewed_in_child"]

#: Each registered object, and what renews it: its lock attributes, and the
#: name of its method that abandons the parent's work (``""``: none).
_RENEWED: weakref.WeakKeyDictionary[object, tuple[tuple[str, ...], str]] = (
    weakref.WeakKeyDictionary()
)
_REGISTRY_LOCK = threading.Lock()


def renewed_in_child(owner: object, *locks: str, abandon: str = "") -> None:
    """In a forked child, give ``owner`` a new ``threading.Lock`` at each of
    its attributes ``locks``, then call its method ``abandon`` (by name, so
    that nothing here keeps ``owner`` alive)."""
    with _REGISTRY_LOCK:
        _RENEWED[owner] = (locks, abandon)


def _renew_in_child() -> None:
    global _REGISTRY_LOCK
    _REGISTRY_LOCK = threading.Lock()
    for owner, (locks, abandon) in list(_RENEWED.items()):
        for name in locks:
            setattr(owner, name, threading.Lock())
        if abandon:
            getattr(owner, abandon)()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_renew_in_child)
