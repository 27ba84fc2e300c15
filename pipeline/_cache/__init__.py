"""HTTP caching (RFC 9111) for a controller, and the locks that let one
process fill an entry while others wait.

| module | holds |
|---|---|
| ``http_cache`` | ``HttpCache``: what a controller is given, built on SQLite or Redis |
| ``cached_hop`` | one call's first hop: lookup and fill lock, hishel's state machine, storage written through effects |
| ``conversion`` | between httpx (or httpx2) and hishel: what is stored of a request and a response, and the response a call gets |
| ``keys`` | a call's cache key and the ``Ticket`` that carries it; a body's digest |
| ``storage_access`` | the storage as calls reach it: opened and closed, faults counted in one line each, left alone while it fails |
| ``backends`` | the SQLite and Redis storages: how each is opened, what each raises when it fails |
| ``fill_locks`` | per-key fill locks, in files or in Redis |

May import: _base, _chain.
"""
