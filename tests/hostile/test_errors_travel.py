"""Errors that travel: every restwire error pickles and copies with its
class, message and the data a caller reads (status, URL, request id,
problem, ``data``, the body), and with nothing live or credential-bearing
inside: no response with its request's headers, no token, cookie or
password. A failing call in a ``ProcessPoolExecutor`` and in a
``multiprocessing.Pool`` gives the caller its error, and the pool serves
the next job; under both drivers, against a real server."""

from __future__ import annotations

import copy
import importlib
import multiprocessing.pool
import pickle
import pkgutil
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import httpx
import pytest

import restwire
import restwire.middlewares
from restwire import (
    ContentError,
    NetworkError,
    NotFoundError,
    RestwireError,
    ServerError,
    ServerSentEvent,
    TransportError,
)
from restwire._chain.exchange import HeaderNameRefused
from restwire._endpoints.status_errors import error_class, status_error
from restwire._wire.sse import EventDataError
from restwire.middlewares.oauth2 import OAuth2Error
from tests.forkserver import FORKSERVER
from tests.hostile import travelling_calls
from tests.hostile.travelling_calls import COOKIE, HEADER_TOKEN, QUERY_TOKEN, Failure
from tests.servers import RecordingServer

# -- every error, pickled and copied ----------------------------------------------

PASSWORD = "pw-userinfo-31c9"
SET_COOKIE = "sid-set-cookie-8b0e"
RESPONSE_TOKEN = "tok-response-4d2a"
CLIENT_SECRET = "cs-oauth-6f13"
SECRETS = (HEADER_TOKEN, QUERY_TOKEN, COOKIE, PASSWORD, SET_COOKIE, RESPONSE_TOKEN)

URL = (
    f"https://me:{PASSWORD}@api.example.com/posts/999?access_token={QUERY_TOKEN}&page=2"
)
#: The URL as it travels: no userinfo, the credential param redacted.
URL_TRAVELLED = "https://api.example.com/posts/999?access_token=[redacted]&page=2"
PROBLEM = travelling_calls.PROBLEM.encode()


def response(status: int = 404, body: bytes = PROBLEM) -> httpx.Response:
    """An error response as a call gets it: its request sent credentials in
    a header, a cookie, the userinfo and the query; it sets a cookie and
    hands out a token of its own."""
    request = httpx.Request(
        "GET",
        URL,
        headers={"Authorization": f"Bearer {HEADER_TOKEN}", "Cookie": f"sid={COOKIE}"},
    )
    return httpx.Response(
        status,
        headers={
            "content-type": "application/problem+json",
            "x-request-id": "req-1",
            "retry-after": "30",
            "set-cookie": f"session={SET_COOKIE}; Path=/",
            "x-auth-token": RESPONSE_TOKEN,
            "www-authenticate": 'Bearer error="invalid_token"',
        },
        content=body,
        request=request,
    )


def status_sample(status: int) -> Callable[[], RestwireError]:
    return lambda: status_error(response(status), Failure, {})


def event_data_error() -> RestwireError:
    event = ServerSentEvent("price", "not json", "7", None)
    return EventDataError("GET /live", response(200, b""), event)


def oauth2_error() -> RestwireError:
    return OAuth2Error(
        "GET https://api.example.com/me",
        f"https://client:{CLIENT_SECRET}@auth.example.com/token?code={CLIENT_SECRET}",
        "client_credentials",
        "refused the grant (400 invalid_client)",
        status=400,
        error="invalid_client",
        error_description="unknown client",
        error_uri="https://auth.example.com/docs",
    )


def samples() -> dict[str, Callable[[], RestwireError]]:
    """One instance of each restwire error, by its class's qualified name,
    made as restwire makes it."""
    from restwire import (
        BodyTooLarge,
        ControllerClosed,
        DownloadError,
        EntityError,
        InvalidRequest,
        MissingExtra,
        ParameterError,
        RequestBodyError,
        SettingError,
        TooManyRedirects,
        UsageError,
    )
    from restwire.middlewares import BodyStatusError, KeyCollision
    from restwire.middlewares.opentelemetry import MissingOpenTelemetry
    from restwire.middlewares.rate_limit import RateLimited
    from restwire.middlewares.shared_token import SharedTokenError

    url = httpx.URL(URL)
    made: dict[type[RestwireError], Callable[[], RestwireError]] = {
        RestwireError: lambda: RestwireError("something failed"),
        UsageError: lambda: UsageError("expected a RestEndpoint, got '/posts'"),
        SettingError: lambda: SettingError("max_redirects must be a number"),
        InvalidRequest: lambda: InvalidRequest("GET /posts: a GET sends no body"),
        RequestBodyError: lambda: RequestBodyError("POST /posts: a one-shot body"),
        ParameterError: lambda: ParameterError("GET /posts/:id", "id", "is missing"),
        ControllerClosed: lambda: ControllerClosed("GET /posts"),
        TransportError: lambda: TransportError(
            "GET", url, httpx.ConnectError("refused")
        ),
        TooManyRedirects: lambda: TooManyRedirects("GET", url, 5),
        ContentError: lambda: ContentError(response(200, b"<html>"), "not JSON"),
        BodyTooLarge: lambda: BodyTooLarge("GET", url, 1024),
        DownloadError: lambda: DownloadError(
            "GET https://api.example.com/files/1",
            "/tmp/downloads",
            OSError(28, "No space left on device"),
        ),
        NetworkError: lambda: NetworkError(response(304)),
        MissingExtra: lambda: MissingExtra("HttpCache.sqlite()", "hishel"),
        MissingOpenTelemetry: lambda: MissingOpenTelemetry(
            "OpenTelemetry()", "opentelemetry"
        ),
        EntityError: lambda: EntityError(
            "Post", "id", {"title": "x"}, "has no primary key"
        ).from_request("GET https://api.example.com/posts/"),
        SharedTokenError: lambda: SharedTokenError("GET /me: the lock was not free"),
        HeaderNameRefused: lambda: HeaderNameRefused("a middleware set 'Nämé'"),
        KeyCollision: lambda: KeyCollision("a_b", "aB", "aB", "POST /posts request"),
        RateLimited: lambda: RateLimited.too_long("GET /posts", "api", 9.0, 5.0),
        BodyStatusError: lambda: BodyStatusError(
            response(200, b'{"ok": false, "error": "no_text"}'),
            "no_text",
            {"ok": False, "error": "no_text"},
        ),
    }
    for status in (400, 401, 403, 404, 409, 422, 429, 418, 503):
        made.setdefault(error_class(status), status_sample(status))
    made[EventDataError] = event_data_error
    made[OAuth2Error] = oauth2_error
    return {cls.__qualname__: make for cls, make in made.items()}


def every_error_class() -> list[type[RestwireError]]:
    """Every subclass of ``RestwireError`` that restwire defines, in any of
    its modules (each imported first), and the base itself."""
    for package in (restwire, restwire.middlewares):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
    found: list[type[RestwireError]] = [RestwireError]
    pending = [RestwireError]
    while pending:
        for sub in pending.pop().__subclasses__():
            if sub not in found and sub.__module__.startswith("restwire."):
                found.append(sub)
                pending.append(sub)
    return found


def test_every_error_class_has_a_sample() -> None:
    """A new error class fails here until it has a sample below: the walk
    is what makes sure each one travels."""
    names = {cls.__qualname__ for cls in every_error_class()}
    assert names == set(samples()), names ^ set(samples())
    assert len(names) >= 30


def readable(value: Any) -> Any:
    """What a caller reads of an attribute: a response's status, reason,
    body and the headers that say nothing of who called; a URL as text."""
    if isinstance(value, httpx.Response):
        hidden = {"set-cookie", "x-auth-token", "content-length"}
        headers = sorted(
            (name, text)
            for name, text in value.headers.multi_items()
            if name not in hidden
        )
        request = value.request
        return (value.status_code, value.reason_phrase, value.content, headers,
                request.method, readable(request.url))  # fmt: skip
    if isinstance(value, httpx.URL):
        return (
            str(value).replace(f"me:{PASSWORD}@", "").replace(QUERY_TOKEN, "[redacted]")
        )
    if isinstance(value, str):  # (a text is redacted as a message is)
        return value.replace(f"client:{CLIENT_SECRET}@", "[redacted]@").replace(
            f"code={CLIENT_SECRET}", "code=[redacted]"
        )
    if isinstance(value, tuple):
        return tuple(map(readable, value))
    return value


def travelled(how: str, error: RestwireError) -> RestwireError:
    if how == "pickle":
        got: RestwireError = pickle.loads(pickle.dumps(error))
    else:
        got = copy.deepcopy(error)
    return got


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
@pytest.mark.parametrize("name", sorted(samples()))
def test_each_error_arrives_whole_and_without_a_credential(name: str, how: str) -> None:
    error = samples()[name]()
    got = travelled(how, error)
    assert type(got) is type(error)
    assert got.args == readable(error.args)
    assert str(got) == readable(str(error))
    assert vars(got).keys() == vars(error).keys()
    for attribute, value in vars(error).items():
        assert readable(getattr(got, attribute)) == readable(value), attribute
    if isinstance(error, ImportError):
        assert (got.name, got.path) == (error.name, error.path)  # type: ignore[attr-defined]
    shown = pickle.dumps(got) + repr(vars(got)).encode()
    for secret in (*SECRETS, CLIENT_SECRET):
        assert secret.encode() not in shown, (attribute, secret)
    if isinstance(error, NetworkError):
        assert isinstance(got, NetworkError)
        assert (got.status, got.method, got.request_id, got.retry_after) == (
            error.status,
            error.method,
            error.request_id,
            error.retry_after,
        )
        assert str(got.url) == URL_TRAVELLED
        assert got.problem == error.problem
        assert got.data == error.data
        assert got.text == error.text
        assert got.json() == error.json()
        assert "authorization" not in got.response.request.headers
        assert (
            got.response.headers["www-authenticate"] == 'Bearer error="invalid_token"'
        )
        # and it travels again, as it came
        again = pickle.loads(pickle.dumps(got))
        assert readable(again.response) == readable(got.response)


def test_the_status_errors_keep_their_data() -> None:
    error = samples()["NotFoundError"]()
    got = pickle.loads(pickle.dumps(error))
    assert isinstance(got, NotFoundError)
    assert got.data == Failure(title="Not Found", status=404, detail="no post 999")
    assert got.problem is not None
    assert got.problem.detail == "no post 999"
    assert (got.request_id, got.retry_after) == ("req-1", 30.0)


@pytest.mark.parametrize("name", sorted(samples()))
def test_a_shallow_copy_shares_what_the_error_holds(name: str) -> None:
    error = samples()[name]()
    error.add_note("seen by the caller")
    try:
        raise error from KeyError("cause")
    except RestwireError as raised:
        got = copy.copy(raised)
    assert type(got) is type(error)
    assert got is not error
    assert got.args == error.args
    assert all(getattr(got, k) is v for k, v in vars(error).items())
    assert isinstance(got.__cause__, KeyError)


def test_data_that_cannot_be_pickled_is_left_out_with_a_note() -> None:
    """A model defined in a function cannot be pickled: the error travels
    without it, and says so, instead of failing to travel at all."""

    class Local:
        pass

    error = status_sample(404)()
    assert isinstance(error, NotFoundError)
    error.data = Local()
    got = pickle.loads(pickle.dumps(error))
    assert type(got) is NotFoundError
    assert got.data is None
    assert got.status == 404
    assert any("data" in note for note in got.__notes__)


# -- a failing call in another process --------------------------------------------

#: What each failing call raises, and what its caller reads of it.
EXPECTED: dict[str, tuple[type[RestwireError], dict[str, Any]]] = {
    "not-found": (
        NotFoundError,
        {
            "status": 404,
            "request_id": "req-404",
            "retry_after": 7.0,
            "data": Failure(title="Not Found", status=404, detail="no post 999"),
        },
    ),
    "server-error": (
        ServerError,
        # no error_schema: the body as JSON travels as data
        {"status": 503, "retry_after": 3.0, "data": {"status": 503}},
    ),
    "not-json": (ContentError, {"content_type": "text/html"}),
    "refused": (TransportError, {"method": "GET"}),
}


@pytest.fixture(scope="module")
def executor() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(max_workers=1, mp_context=FORKSERVER) as pool:
        yield pool


@pytest.fixture(scope="module")
def process_pool() -> Iterator[multiprocessing.pool.Pool]:
    pool = FORKSERVER.Pool(1)
    yield pool
    pool.terminate()
    pool.join()


def run_in(
    where: str,
    executor: ProcessPoolExecutor,
    process_pool: multiprocessing.pool.Pool,
    *args: Any,
) -> Any:
    """``travelling_calls.call(*args)`` in a worker process; its value, or
    its error raised here (at most a minute: a pool that cannot read the
    error back would wait for ever)."""
    if where == "executor":
        return executor.submit(travelling_calls.call, *args).result(timeout=60)
    return process_pool.apply_async(travelling_calls.call, args).get(timeout=60)


@pytest.mark.parametrize("kind", sorted(EXPECTED))
@pytest.mark.parametrize("mode", ["sync", "async"])
@pytest.mark.parametrize("where", ["executor", "multiprocessing.Pool"])
def test_a_call_failing_in_a_worker_process_gives_its_caller_the_error(
    where: str,
    mode: str,
    kind: str,
    origin_a: RecordingServer,
    executor: ProcessPoolExecutor,
    process_pool: multiprocessing.pool.Pool,
) -> None:
    expected, attributes = EXPECTED[kind]
    with pytest.raises(expected) as caught:
        run_in(where, executor, process_pool, kind, origin_a.origin, mode == "async")
    error = caught.value
    assert type(error) is expected
    for attribute, value in attributes.items():
        assert getattr(error, attribute) == value, attribute
    assert "[redacted]" in str(error)
    # the token sent as a header, as the userinfo's password and in the
    # query: in neither the error nor the remote traceback that came with it
    shown = pickle.dumps(error) + str(error.__cause__).encode()
    for secret in (HEADER_TOKEN, QUERY_TOKEN):
        assert secret.encode() not in shown, secret
    if isinstance(error, NetworkError):
        assert error.url.host == "127.0.0.1"
        assert error.url.params["access_token"] == "[redacted]"
        assert "set-cookie" not in error.response.headers  # (the server set one)
        assert error.json() == error.response.json()
    # the pool is whole: the next job runs
    assert run_in(
        where, executor, process_pool, "ok", origin_a.origin, mode == "async"
    ) == {"fine": True}


def test_a_download_error_keeps_the_system_s_errno_wherever_it_travels() -> None:
    """``errno`` and ``strerror`` are ``OSError``'s own slots, not in
    ``vars()``: pickled, copied or raised afresh they were ``None``."""
    import copy
    import pickle

    from restwire import DownloadError
    from restwire._base.errors import fresh_error

    error = DownloadError("GET /f", "/tmp/x", OSError(28, "No space left on device"))
    for travelled in (
        pickle.loads(pickle.dumps(error)),
        copy.copy(error),
        copy.deepcopy(error),
        fresh_error(error),
        error.annotated("gave up"),
    ):
        assert (travelled.errno, travelled.strerror) == (28, "No space left on device")
        assert travelled.folder == "/tmp/x"
        assert str(travelled).startswith("GET /f: cannot write the download in")
