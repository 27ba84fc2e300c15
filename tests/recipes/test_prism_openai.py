"""The OpenAI chat-stream recipe against OpenAI's own OpenAPI description
(``openai/openai-openapi``), served by Stoplight Prism, as ``test_prism.py``
does for Stripe and GitHub.

What Prism can and cannot check here: Prism checks the recipe's own
streaming request (``POST /v1/chat/completions``, the bearer key, the
JSON body with ``"stream": true``, ``Accept: text/event-stream``) against
OpenAI's ``CreateChatCompletionRequest``, and then cannot answer it: Prism
does not write event streams (it answers a 500, "Cannot serialise complex
objects as text"; :func:`test_openai_streams_the_recipes_request_as_described`
holds both). So the chunks the recipe reads are checked apart: the same
request, asking for JSON, answered by Prism with one chunk made from
OpenAI's ``CreateChatCompletionStreamResponse``
(``tests.prism_openai.chunks_as_json``), which the recipe reads into its
``ChatChunk``. Prism checks a body only once three of OpenAI's schemas
say ``nullable`` in OpenAPI 3.1's words (``tests.prism_openai
.null_for_nullable``); as OpenAI wrote them, Prism lets any body through
without a word. The event framing (``data:`` lines, ``[DONE]``) is not
OpenAI's description's to say, and is tested against a real server in
``test_providers.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from recipes import openai_chat
from recipes.openai_chat import OPENAI_KEY
from restwire import RestEndpoint, RestwireError
from tests.prism import Prism, mounted, require, violations
from tests.prism_openai import EVENT_STREAM, chunks_as_json, null_for_nullable
from tests.recipes.test_prism import (
    Wire,
    _AsyncRecording,
    _Recording,
    _request_side,
    undeclared,
)
from tests.vectors.openapi import OPERATIONS, load
from tests.vectors.openapi.extract import cut

pytestmark = pytest.mark.anyio

prism = pytest.mark.prism

CHAT = "/v1/chat/completions"
#: What the recipe asks (``recipes/openai_chat.run``).
QUESTION = {
    "model": "gpt-4o-mini",
    "messages": [{"role": "user", "content": "streams are neat"}],
    "stream": True,
}
#: Prism's answer to a request it accepted but cannot answer as an event
#: stream.
NO_EVENT_STREAM = (
    "500 Cannot serialise complex objects as text: "
    "Cannot serialise complex objects as text"
)


def described() -> dict[str, Any]:
    """OpenAI's description as Prism serves it: under ``/v1``, its three
    ``nullable`` schemas in 3.1's words (without which Prism checks no
    body), chunks also answered as JSON."""
    return chunks_as_json(null_for_nullable(mounted(load("openai"))))


@pytest.fixture(scope="module")
def served() -> Iterator[Prism]:
    require()
    with Prism(described(), "openai") as server:
        yield server


@pytest.fixture
def wire(served: Prism) -> Wire:
    return Wire({served.origin: mounted(load("openai"))})


@pytest.fixture
def on_prism(controller_factory: Any, mode: str, wire: Wire) -> Any:
    if mode == "sync":
        return controller_factory(transport=_Recording(wire))
    return controller_factory(transport=_AsyncRecording(wire))


async def _drain(events: Any) -> list[Any]:
    if hasattr(events, "__aiter__"):
        return [each async for each in events]
    return list(await events)  # the sync driver's generator, awaited


@prism
async def test_openai_streams_the_recipes_request_as_described(
    on_prism: Any, wire: Wire, served: Prism
) -> None:
    """The recipe's own ``stream()`` call: Prism finds nothing wrong with
    the request, then answers it with a 500 because it cannot write an
    event stream (if a Prism ever can, this test says so)."""
    chat = openai_chat.chat_endpoint(served.origin, OPENAI_KEY)
    with pytest.raises(RestwireError) as raised:
        await _drain(on_prism.stream(chat, body=QUESTION))
    assert "500" in str(raised.value)
    (response,) = wire.exchanges  # a POST stream is never sent again
    request = response.request
    assert (request.method, request.url.path) == ("POST", CHAT)
    assert request.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert request.headers["accept"] == EVENT_STREAM
    assert request.headers["content-type"] == "application/json"
    assert json.loads(request.read()) == QUESTION
    # what Prism checked found nothing wrong; what it said is only that
    # it cannot write the stream
    assert violations(response) == []
    assert undeclared(wire.descriptions[served.origin], request) == []
    assert wire.refused() == [f"POST {CHAT}: {NO_EVENT_STREAM}"]
    assert response.json()["type"].endswith("#NO_COMPLEX_OBJECT_TEXT")


@prism
async def test_openai_chunks_are_read_typed_as_described(
    on_prism: Any, wire: Wire, served: Prism
) -> None:
    """The recipe's endpoint and body, asking for JSON: Prism answers one
    chunk made from OpenAI's chunk schema, read into ``ChatChunk``."""
    chat = openai_chat.chat_endpoint(served.origin, OPENAI_KEY)
    as_json = chat.extend(headers={"Accept": "application/json"})
    with wire.checking():
        chunk = await on_prism.fetch(as_json, body=QUESTION)
        dynamic = await on_prism.fetch(
            as_json.extend(headers={"Prefer": "dynamic=true"}), body=QUESTION
        )
    assert [json.loads(r.request.read()) for r in wire.exchanges] == [QUESTION] * 2
    for value, response in zip((chunk, dynamic), wire.exchanges, strict=True):
        body = response.json()
        assert body["object"] == "chat.completion.chunk"
        assert isinstance(value, openai_chat.ChatChunk)
        assert value.id == body["id"]
        assert value.model == body["model"]
        assert len(value.choices) == len(body["choices"])
        for choice, data in zip(value.choices, body["choices"], strict=True):
            assert choice.index == data["index"]
            assert choice.finish_reason == data["finish_reason"]
            assert choice.delta.content == data["delta"].get("content")
            assert choice.delta.role == data["delta"].get("role")
            assert isinstance(choice.delta.content, str | None)


@prism
async def test_prism_refuses_what_openais_description_does_not_allow(
    on_prism: Any, wire: Wire, served: Prism
) -> None:
    """The checks above can fail: each of these breaks OpenAI's
    description, and Prism says how."""
    chat = openai_chat.chat_endpoint(served.origin, OPENAI_KEY)
    keyless = RestEndpoint(url_prefix=served.origin, path=CHAT, method="POST")
    wrong = [
        (chat, {"model": "gpt-4o-mini", "stream": True}),  # no messages
        (chat, {**QUESTION, "stream": "yes"}),
        (keyless, QUESTION),
        (chat.extend(path="/chat/completions"), QUESTION),  # without /v1
    ]
    for endpoint, body in wrong:
        with pytest.raises(RestwireError):
            await _drain(on_prism.stream(endpoint, body=body))
    with pytest.raises(AssertionError) as refused:
        wire.assert_accepted()
    lines = str(refused.value).splitlines()[1:]
    invalid = (
        f"POST {CHAT}: 422 Invalid request: Your request is not valid and no "
        "HTTP validation response was found in the spec, so Prism is generating "
        "this error for you."
    )
    assert lines == [
        invalid,
        invalid,
        f"POST {CHAT}: 401 Invalid security scheme used: Your request does not "
        "fullfil the security requirements and no HTTP unauthorized response was "
        "found in the spec, so Prism is generating this error for you.",
        "POST /chat/completions: 404 Route not resolved, no path matched: The "
        "route /chat/completions hasn't been found in the specification file",
        "POST /chat/completions: no operation of the description has this path "
        "and method",
    ]
    # what Prism's 422s name (in their bodies: the description has no 422)
    assert [r.json()["validation"] for r in wire.exchanges[:2]] == [
        [
            {
                "location": ["body"],
                "severity": "Error",
                "code": "required",
                "message": "Request body must have required property 'messages'",
            }
        ],
        [
            {
                "location": ["body", "stream"],
                "severity": "Error",
                "code": "type",
                "message": "Request body property stream must be boolean,null",
            }
        ],
    ]


# -- the description, and the steps Prism needs (no Prism) ---------------------------


def test_the_description_is_its_operation_and_what_it_references() -> None:
    spec = load("openai")
    assert cut(spec, OPERATIONS["openai"]) == spec
    assert list(spec["paths"]) == ["/chat/completions"]
    assert list(spec["paths"]["/chat/completions"]) == ["post"]
    assert spec["servers"] == [{"url": "https://api.openai.com/v1"}]
    assert spec["components"]["securitySchemes"]["ApiKeyAuth"] == {
        "type": "http",
        "scheme": "bearer",
    }


def test_what_prism_is_given_of_openai_checks_requests_as_openai_wrote() -> None:
    """Mounted under ``/v1`` and with chunks offered as JSON, the request
    side is OpenAI's (``null_for_nullable``'s change is the test below)."""
    spec = load("openai")
    assert (
        _request_side(chunks_as_json(mounted(spec)))[f"post {CHAT}"]
        == (_request_side(spec)["post /chat/completions"])
    )
    derived = described()
    assert list(derived["paths"]) == [CHAT]
    content = derived["paths"][CHAT]["post"]["responses"]["200"]["content"]
    assert (
        content["application/json"]
        == content[EVENT_STREAM]
        == {
            "schema": {
                "$ref": "#/components/schemas/CreateChatCompletionStreamResponse"
            }
        }
    )
    assert spec == load("openai")  # a copy was changed, not the original


def _differences(left: Any, right: Any, where: str = "") -> list[str]:
    """Where two JSON values differ (the outermost places)."""
    if (
        isinstance(left, dict)
        and isinstance(right, dict)
        and left.keys() == right.keys()
    ):
        return [
            found
            for key in left
            for found in _differences(left[key], right[key], f"{where}/{key}")
        ]
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        return [
            found
            for index, (a, b) in enumerate(zip(left, right, strict=True))
            for found in _differences(a, b, f"{where}/{index}")
        ]
    return [] if left == right else [where]


def test_only_the_nullable_schemas_are_written_anew() -> None:
    spec = load("openai")
    derived = null_for_nullable(spec)
    changed = _differences(spec, derived)
    assert changed == [
        "/components/schemas/CreateChatCompletionRequest/allOf/1/properties/prediction",
        "/components/schemas/CreateChatCompletionStreamResponse/properties/usage",
        "/components/schemas/StopConfiguration",
    ]
    for where in changed:
        before, after = spec, derived
        for key in where.strip("/").split("/"):
            before = before[int(key) if isinstance(before, list) else key]
            after = after[int(key) if isinstance(after, list) else key]
        assert before["nullable"] is True
        assert "type" not in before
        rest = {key: value for key, value in before.items() if key != "nullable"}
        assert after == {"anyOf": [rest, {"type": "null"}]}
    assert spec == load("openai")
