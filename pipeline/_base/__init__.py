"""The bottom layer: what every other layer stands on.

| module | holds |
|---|---|
| ``errors`` | every exception restwire raises, redaction of credentials from messages, optional dependencies (``require``) |
| ``http`` | what HTTP's standards define: method classes, origins, JSON media types, ``Form``, ``Retry-After``, problem details |
| ``credentials`` | the one rule that says which headers, params and cookies say who is calling |
| ``library`` | which HTTP library is installed (httpx, httpx2), and the names to annotate with |
| ``effects`` | the I/O a flow may ask for, as values the drivers perform |
| ``concurrency`` | the waiting primitives of the two drivers (threads, anyio) |
| ``durations`` | seconds, and the warning for a number that looks like milliseconds |
| ``forks`` | what a forked child starts over with: new locks, no calls of the parent's threads |
| ``settings`` | a setting that takes a collection of names, refused when it is one text |

May import: nothing of restwire.
"""
