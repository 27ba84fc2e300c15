"""What users define: endpoints, resources, pages, and the errors a status raises.

| module | holds |
|---|---|
| ``endpoint`` | ``RestEndpoint``: what to call and how |
| ``options`` | an endpoint's options: checked and converted where written; how headers combine |
| ``resource`` | ``resource()`` and ``hookify_resource()`` |
| ``pages`` | ``Page`` and ``paged``: the one shape of a page; ``Envelope``: a listing's body unwrapped into it; how ``paginate`` goes from one page to the next |
| ``status_errors`` | ``NotFoundError`` and the other errors of a status |

May import: _base, _wire, _store, _chain.
"""
