"""What goes on the wire: the HTTP library behind one adapter, and the
formats restwire reads and writes.

| module | holds |
|---|---|
| ``adapter`` | every contact with httpx or httpx2: sending a hop, reading a body, building a request, cookies |
| ``shortcuts`` | two library objects built for less than the public way, checked against it |
| ``fast_transport`` | ``fast_transport()``: aiohttp's pool under an httpx client |
| ``default_transport`` | the transport of the client a controller makes for itself |
| ``content`` | content kinds (how a body is read), decoding with bounds, request bodies |
| ``params`` | how a call's params are written: path segments, query pairs in a param style, form fields |
| ``header_params`` | ``Link`` and ``Content-Disposition`` parsed |
| ``sse`` | server-sent events: parser, reader, reconnection rules |
| ``downloads`` | a streamed body saved to a folder under a safe name |

May import: _base.
"""
