"""The controller: a call's steps, wired in one place, and the two drivers.

| module | holds |
|---|---|
| ``async_controller`` | ``AsyncController`` and its driver: the one source of both |
| ``sync_controller`` | ``Controller``: generated from ``async_controller`` |
| ``controller`` | ``BaseController``: the steps of a call, wired together |
| ``calls`` | one call: where it goes, and what it has become; identical reads in flight share one request |
| ``sender`` | the end of every chain: build, send hop by hop, read, parse |
| ``store_access`` | a call's outcome kept in the store, and read back |
| ``managers`` | controller-wide reactions around every call |
| ``polling`` | subscribers to one request share one poller |
| ``streams`` | server-sent event streams, as a controller opens and reads them |

May import: _base, _wire, _store, _chain, _endpoints, _cache.
"""
