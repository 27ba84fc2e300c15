"""What Prism is given of OpenAI's description (``test_prism_openai.py``),
beside :func:`tests.prism.mounted`.

OpenAI's chat completions answer a request with ``"stream": true`` as
``text/event-stream``, each event a ``CreateChatCompletionStreamResponse``
(a ``chat.completion.chunk``). Prism checks that request as OpenAI wrote
it, then cannot answer it: it writes a ``text/event-stream`` body as
plain text and refuses to write an object so (a 500, ``Cannot serialise
complex objects as text``). :func:`chunks_as_json` offers the chunk's
schema as the ``application/json`` answer too, so that Prism can make a
chunk from OpenAI's schema for a request asking for JSON. The request
side is not touched.

:func:`null_for_nullable`: OpenAI's description is OpenAPI 3.1, whose
schemas are JSON Schema (null is ``{"type": "null"}``), yet three of the
schemas this operation reaches say ``nullable: true``, OpenAPI 3.0's
word, beside a ``$ref`` or a ``oneOf`` and no ``type`` (the request's
``prediction`` and ``stop``, the chunk's ``usage``). Prism's validator
(ajv) refuses to compile a schema holding ``nullable`` without ``type``,
and Prism then checks nothing of that body, saying nothing: any JSON body
would pass. Each such schema is written as what it says, the schema or
null (``anyOf``), so that Prism checks the request body at all.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from tests.prism import _operations

__all__ = ["EVENT_STREAM", "chunks_as_json", "null_for_nullable"]

EVENT_STREAM = "text/event-stream"


def null_for_nullable(spec: Mapping[str, Any]) -> dict[str, Any]:
    """``spec`` with each schema that has ``nullable: true`` and no
    ``type`` made ``{"anyOf": [the schema less nullable, {"type":
    "null"}]}`` (a copy; nothing else changes)."""

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(each) for each in node]
        if not isinstance(node, dict):
            return node
        walked = {key: walk(value) for key, value in node.items()}
        if walked.get("nullable") is True and "type" not in walked:
            del walked["nullable"]
            return {"anyOf": [walked, {"type": "null"}]}
        return walked

    derived: dict[str, Any] = walk(dict(spec))
    return derived


def chunks_as_json(spec: Mapping[str, Any]) -> dict[str, Any]:
    """``spec`` with each response that can be an event stream answering
    ``application/json`` with the event's schema (in place of the
    non-streamed answer's), a copy."""
    derived = copy.deepcopy(dict(spec))
    for path, methods in _operations(derived).items():
        for method in methods:
            responses = derived["paths"][path][method].get("responses", {})
            for response in responses.values():
                content = response.get("content", {})
                if EVENT_STREAM in content:
                    content["application/json"] = content[EVENT_STREAM]
    return derived
