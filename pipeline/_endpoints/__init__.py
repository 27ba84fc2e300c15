"""What users define: endpoints, resources, pages, and the errors a status raises.

| module | holds |
|---|---|
| ``endpoint`` | ``RestEndpoint``: what to call and how |
| ``options`` | an endpoint's options: checked and converted where written; how headers combine |
| ``resource`` | ``resource()`` and ``hookify_resource()`` |
| ``page`` | ``Page`` and ``paged``: the one shape of a page |
| ``envelope`` | ``Envelope``: a listing's body unwrapped into a page |
| ``status_errors`` | ``NotFoundError`` and the other errors of a status |

May import: _base, _wire, _store, _chain.
"""
