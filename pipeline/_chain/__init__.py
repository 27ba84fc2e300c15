"""The chain: one call in flight, the middleware it passes, and who it says it is.

| module | holds |
|---|---|
| ``exchange`` | the ``Exchange``: a call as every middleware sees it |
| ``stack`` | middleware protocols, the ``Stack``, and one call run through it |
| ``watchers`` | what sees each request a call sends, and its end |
| ``identity`` | who a call says it is, worked out from its first hop |

May import: _base, _wire.
"""
