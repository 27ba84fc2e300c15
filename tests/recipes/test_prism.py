"""The Stripe and GitHub recipes against the providers' own OpenAPI
descriptions, served by Stoplight Prism (``tests/prism.py``).

``tests/recipes/test_providers.py`` runs the recipes against our imitation
of the two APIs (``recipes/demo_providers.py``), which checks what we
understood of them. Here the judge is the providers' own text
(``tests/vectors/openapi/``) and a validator nobody here wrote: Prism
checks each request the recipes' own endpoints send, and every test
asserts two things:

- Prism accepted every request (no ``sl-violations``, none of Prism's own
  refusals); a refused one fails the test with Prism's words. Prism lets
  a parameter or form field the description does not name go by, so each
  name sent is also looked up in the description (:func:`undeclared`).
- restwire read Prism's answer, built from the description's schemas and
  examples, into the recipe's types: each field equal to the body's, and
  of the type the recipe declares for it (:func:`assert_typed`).

The Prism tests are marked ``prism`` and skip, saying why, where node or
the pinned Prism is missing (``.ci/install-node-tools`` installs it). The tests
of the descriptions and of the steps Prism needs (``tests/prism.py``) run
everywhere.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import parse_qsl

import httpx
import msgspec
import pytest

from recipes import github, stripe
from recipes.demo_providers import GITHUB_TOKEN, STRIPE_KEY, STRIPE_VERSION
from recipes.tour import Tour
from restwire import Entity, Form, NotFoundError, RestEndpoint
from tests.prism import (
    GITHUB_MEDIA_TYPES,
    Prism,
    offering,
    referenced,
    require,
    unexpanded,
    violations,
)
from tests.recipes.test_providers import REPO, UUID4
from tests.vectors.openapi import OPERATIONS, load
from tests.vectors.openapi.extract import cut

pytestmark = pytest.mark.anyio

#: The expandable fields the Stripe recipe expands (``expand[]=``), which
#: keep their expanded forms for Prism (see ``tests/prism.unexpanded``).
EXPANDED = {("customer", "default_source")}

prism = pytest.mark.prism


# -- what went over the wire, and what Prism said of it ----------------------------


@dataclass
class Wire:
    """Each request a test's client sent, with the answer it got."""

    #: The provider's description, by the origin of the Prism serving it.
    descriptions: dict[str, dict[str, Any]]
    exchanges: list[httpx.Response] = field(default_factory=list)

    def refused(self) -> list[str]:
        """What Prism refused, or the description does not name, one line
        each: ``"GET /v1/customers?limit=two: query.limit: ..."``."""
        found = []
        for response in self.exchanges:
            request = response.request
            problems = violations(response)
            if not problems and response.headers.get("content-type", "").startswith(
                "application/problem+json"
            ):  # Prism's own refusals: no such path, not acceptable, ...
                problems = [f"{response.status_code} {_problem(response)}"]
            spec = self.descriptions[
                f"{request.url.scheme}://{request.url.netloc.decode()}"
            ]
            problems += undeclared(spec, request)
            target = request.url.raw_path.decode()
            found += [f"{request.method} {target}: {problem}" for problem in problems]
        return found

    def assert_accepted(self) -> None:
        """Every request was one the provider's description allows."""
        assert self.exchanges, "no request reached Prism"
        refused = self.refused()
        if refused:
            raise AssertionError(
                "refused by the provider's OpenAPI description:\n" + "\n".join(refused)
            )

    @contextlib.contextmanager
    def checking(self) -> Iterator[None]:
        """Check the requests made in the block, also when it raised: a
        refused request fails with Prism's words, not with the error
        restwire raised for Prism's 4xx."""
        try:
            yield
        except Exception:
            self.assert_accepted()
            raise
        self.assert_accepted()

    def sent(self, path: str) -> list[httpx.Request]:
        """The requests sent to ``path``, in order."""
        return [r.request for r in self.exchanges if r.request.url.path == path]


def _problem(response: httpx.Response) -> str:
    try:
        body = json.loads(response.content)
    except (ValueError, RuntimeError):  # not JSON; not read (ResponseNotRead)
        return ""
    return f"{body.get('title')}: {body.get('detail')}"


class _Recording(httpx.BaseTransport):
    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        self.wire.exchanges.append(response)
        return response

    def close(self) -> None:
        self.inner.close()


class _AsyncRecording(httpx.AsyncBaseTransport):
    def __init__(self, wire: Wire) -> None:
        self.wire = wire
        self.inner = httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        self.wire.exchanges.append(response)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def _operation(
    spec: Mapping[str, Any], request: httpx.Request
) -> dict[str, Any] | None:
    """The description's operation for ``request`` (its path template
    matched segment by segment), or ``None``."""
    parts = request.url.path.strip("/").split("/")
    for template, item in spec["paths"].items():
        pattern = template.strip("/").split("/")
        if len(pattern) == len(parts) and all(
            _segment_matches(p, s) for p, s in zip(pattern, parts, strict=True)
        ):
            operation = item.get(request.method.lower())
            return None if operation is None else {"item": item, **operation}
    return None


def _segment_matches(template: str, segment: str) -> bool:
    """Whether a path ``segment`` is one the template's segment allows: the
    same text, or its ``{placeholders}`` filled (``{Sid}.json``)."""
    if "{" not in template:
        return template == segment
    pattern = re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(template))
    return re.fullmatch(pattern, segment) is not None


def _resolved(spec: Mapping[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        kind, name = node["$ref"].rsplit("/", 2)[1:]
        node = spec["components"][kind][name]
    return node


def undeclared(spec: Mapping[str, Any], request: httpx.Request) -> list[str]:
    """The query parameters and form fields of ``request`` that its
    operation in ``spec`` does not declare (``created[gte]`` counts as
    ``created``, ``expand[]`` as ``expand``). Prism lets those through."""
    operation = _operation(spec, request)
    if operation is None:
        return ["no operation of the description has this path and method"]
    parameters = [
        _resolved(spec, p)
        for p in (
            *operation["item"].get("parameters", ()),
            *operation.get("parameters", ()),
        )
    ]
    query = {p["name"] for p in parameters if p["in"] == "query"}
    problems = [
        f"query parameter {name!r} is not in the description"
        for name, _ in parse_qsl(request.url.query.decode(), keep_blank_values=True)
        if name.partition("[")[0] not in query
    ]
    if request.headers.get("content-type", "").startswith(
        "application/x-www-form-urlencoded"
    ):
        content = _resolved(spec, operation.get("requestBody", {})).get("content", {})
        schema = _resolved(
            spec, content.get("application/x-www-form-urlencoded", {}).get("schema", {})
        )
        fields = set(schema.get("properties", {}))
        # (Swagger 2.0, Slack's: form fields are parameters)
        fields.update(p["name"] for p in parameters if p["in"] == "formData")
        problems += [
            f"form field {name!r} is not in the description"
            for name, _ in parse_qsl(request.read().decode(), keep_blank_values=True)
            if name.partition("[")[0] not in fields
        ]
    return problems


def assert_typed(entity: Entity, data: Mapping[str, Any]) -> None:
    """``entity`` holds what ``data`` (the body it was read from) says, each
    field of the type the recipe declares for it."""
    kind = type(entity).__name__
    # (an Entity is a msgspec Struct, which its type stub does not say)
    for field_info in msgspec.structs.fields(cast(msgspec.Struct, entity)):
        name, declared = field_info.name, field_info.type
        value = getattr(entity, name)
        if name in data:
            assert value == data[name], f"{kind}.{name}"
        try:
            msgspec.convert(value, declared, strict=True)
        except msgspec.ValidationError as error:
            raise AssertionError(
                f"{kind}.{name} is declared {declared}, but the description "
                f"allows {value!r}: {error}"
            ) from None


# -- Prism, serving each provider's description -------------------------------------


@pytest.fixture(scope="module")
def prisms() -> Iterator[dict[str, Prism]]:
    """A Prism for Stripe's description and one for GitHub's, started at
    once (Prism's own start takes about 2 s of CPU)."""
    require()
    servers = {
        "stripe": Prism(unexpanded(load("stripe"), EXPANDED), "stripe"),
        "github": Prism(offering(load("github"), GITHUB_MEDIA_TYPES), "github"),
    }
    with contextlib.ExitStack() as stack:
        for server in servers.values():
            stack.callback(server.close)
            server.launch()
        for server in servers.values():
            stack.enter_context(server)
        yield servers


@pytest.fixture
def wire(prisms: dict[str, Prism]) -> Wire:
    return Wire({server.origin: load(name) for name, server in prisms.items()})


@pytest.fixture
def on_prism(controller_factory: Any, mode: str, wire: Wire) -> Any:
    """A controller of this test's mode whose client records each exchange
    in ``wire``."""
    if mode == "sync":
        return controller_factory(transport=_Recording(wire))
    return controller_factory(transport=_AsyncRecording(wire))


def stripe_customers(prisms: dict[str, Prism]) -> Any:
    return stripe.customers(stripe.stripe_api(prisms["stripe"].origin, STRIPE_KEY))


# -- Stripe ------------------------------------------------------------------------


@prism
async def test_stripe_lists_in_brackets_and_pages_by_cursor_as_described(
    on_prism: Any, wire: Wire, prisms: dict[str, Prism]
) -> None:
    customers = stripe_customers(prisms)
    query = {
        "limit": 2,
        "created": {"gte": 1700002000, "lte": 1700004000},
        "expand": ["data.default_source"],
    }
    with wire.checking():
        pages = [
            page async for page in _pages(on_prism.paginate(customers.get_list, query))
        ]
    # Prism answers every page alike (has_more true, the same last id), so
    # the second page's next URL is its own: paginate's cycle guard stops
    sent = wire.sent("/v1/customers")
    assert len(sent) == len(pages) == 2
    first = wire.exchanges[0].json()
    assert dict(parse_qsl(sent[1].url.query.decode())) == {
        "limit": "2",
        "created[gte]": "1700002000",
        "created[lte]": "1700004000",
        "expand[]": "data.default_source",
        "starting_after": first["data"][-1]["id"],
    }
    for request in sent:
        assert request.headers["authorization"] == f"Bearer {STRIPE_KEY}"
        assert request.headers["stripe-version"] == STRIPE_VERSION
    for page, response in zip(pages, wire.exchanges, strict=True):
        body = response.json()
        assert page["has_more"] is body["has_more"] is True
        assert len(page["results"]) == len(body["data"]) >= 1
        for customer, data in zip(page["results"], body["data"], strict=True):
            assert isinstance(customer, stripe.Customer)
            assert_typed(customer, data)


async def _pages(iterable: Any) -> Any:
    if not hasattr(iterable, "__aiter__"):
        iterable = await iterable  # the sync driver's, awaited
    if hasattr(iterable, "__aiter__"):
        async for each in iterable:
            yield each
    else:
        for each in iterable:
            yield each


@prism
async def test_stripe_creates_from_a_form_under_an_idempotency_key_as_described(
    on_prism: Any, wire: Wire, prisms: dict[str, Prism]
) -> None:
    customers = stripe_customers(prisms)
    sign_up = customers.create.extend(headers={"Idempotency-Key": "sign-up-bob"})
    with wire.checking():
        ada = await on_prism.fetch(
            customers.create, body=Form({"name": "Ada", "metadata": {"plan": "pro"}})
        )
        bob = await on_prism.fetch(sign_up, body=Form({"name": "Bob"}))
    posted = wire.sent("/v1/customers")
    assert [r.method for r in posted] == ["POST", "POST"]
    assert parse_qsl(posted[0].read().decode()) == [
        ("name", "Ada"),
        ("metadata[plan]", "pro"),
    ]
    assert posted[0].headers["content-type"] == "application/x-www-form-urlencoded"
    assert UUID4.fullmatch(posted[0].headers["idempotency-key"])
    assert posted[1].headers["idempotency-key"] == "sign-up-bob"
    for customer, response in zip((ada, bob), wire.exchanges, strict=True):
        assert isinstance(customer, stripe.Customer)
        assert_typed(customer, response.json())


@prism
async def test_stripe_retrieves_a_customer_as_described(
    on_prism: Any, wire: Wire, prisms: dict[str, Prism]
) -> None:
    customers = stripe_customers(prisms)
    with wire.checking():
        customer = await on_prism.fetch(customers.get, {"id": "cus_Q1"})
    assert [r.url.path for r in wire.exchanges] == ["/v1/customers/cus_Q1"]
    body = wire.exchanges[0].json()
    # unexpanded, a customer's default source is its ID (Stripe's anyOf
    # of the ID, a bank account, a card and a source): a str the recipe
    # must be able to hold
    assert isinstance(body["default_source"], str)
    assert_typed(customer, body)


@prism
async def test_stripe_errors_come_as_its_error_object(
    on_prism: Any, wire: Wire, prisms: dict[str, Prism]
) -> None:
    customers = stripe_customers(prisms)
    # Prism answers any status asked for with Prefer: code= (Stripe's
    # description gives its errors as the "default" response)
    missing_one = customers.get.extend(headers={"Prefer": "code=404"})
    with wire.checking(), pytest.raises(NotFoundError) as not_found:
        await on_prism.fetch(missing_one, {"id": "cus_missing"})
    error = not_found.value.json()["error"]  # what the recipe reads
    assert isinstance(error["code"], str)
    assert isinstance(error["message"], str)
    assert error["type"] in {
        "api_error",
        "card_error",
        "idempotency_error",
        "invalid_request_error",
    }
    assert STRIPE_KEY not in str(not_found.value)


class _PrismTour(Tour):
    """The tour, its clients recording each exchange in a :class:`Wire`."""

    def __init__(self, wire: Wire) -> None:
        super().__init__()
        self.wire = wire

    def client(self, **options: Any) -> httpx.Client:
        return httpx.Client(transport=_Recording(self.wire), **options)


@prism
async def test_the_stripe_recipe_runs_whole_as_described(
    wire: Wire, prisms: dict[str, Prism]
) -> None:
    with wire.checking():
        result = stripe.run(prisms["stripe"].origin, _PrismTour(wire))
    methods = [(r.request.method, r.request.url.path) for r in wire.exchanges]
    assert methods == [
        ("GET", "/v1/customers"),
        ("GET", "/v1/customers"),
        ("POST", "/v1/customers"),
        ("POST", "/v1/customers"),
        ("POST", "/v1/customers"),
        ("GET", "/v1/customers/cus_missing"),
    ]
    # Prism keeps nothing: no replay, and every id asked for exists
    assert result["error code"] is None
    assert result["same customer"] is False
    assert result["listed"] == [
        (c["id"], None) for r in wire.exchanges[:2] for c in r.json()["data"]
    ]


@prism
async def test_prism_refuses_what_stripes_description_does_not_allow(
    on_prism: Any, wire: Wire, prisms: dict[str, Prism]
) -> None:
    """The check above can fail: each of these requests breaks the
    description, and the failure says how in Prism's words (or ours, for
    the names Prism lets by)."""
    customers = stripe_customers(prisms)
    keyless = stripe.customers(  # the recipe's base, less its AccessToken
        RestEndpoint(
            url_prefix=prisms["stripe"].origin,
            headers={"Stripe-Version": STRIPE_VERSION},
            param_style="brackets",
        )
    ).get_list
    wrong = [
        (customers.get_list, {"limit": "two"}, None),
        (customers.get_list, {"colour": "red"}, None),
        (customers.create, None, {"name": "Ada"}),  # JSON, not a form
        (customers.create, None, Form({"name": "x" * 257})),
        (keyless, None, None),
        (customers.get_list.extend(path="/v1/customer"), None, None),  # a typo
    ]
    for endpoint, params, body in wrong:
        with contextlib.suppress(Exception):
            await on_prism.fetch(endpoint, params, body=body)
    with pytest.raises(AssertionError) as refused:
        wire.assert_accepted()
    lines = str(refused.value).splitlines()[1:]
    assert lines == [
        "GET /v1/customers?limit=two: query.limit: Request query parameter limit must be integer",
        "GET /v1/customers?colour=red: query parameter 'colour' is not in the description",
        "POST /v1/customers: request: Supported content types: application/x-www-form-urlencoded",
        "POST /v1/customers: body.name: Request body property name must NOT have more than 256 characters",
        "GET /v1/customers: request: Invalid security scheme used",
        "GET /v1/customer: 404 Route not resolved, no path matched: The route "
        "/v1/customer hasn't been found in the specification file",
        "GET /v1/customer: no operation of the description has this path and method",
    ]


# -- GitHub ------------------------------------------------------------------------


@prism
async def test_github_lists_issues_with_its_media_type_and_version_as_described(
    on_prism: Any, wire: Wire, prisms: dict[str, Prism]
) -> None:
    base = github.github_api(prisms["github"].origin, GITHUB_TOKEN)
    issues = github.list_issues(base)
    with wire.checking():
        first = await on_prism.fetch(issues, {**REPO, "per_page": 2})
        # GitHub's next link carries per_page and page; Prism's example
        # Link names api.github.com, which paginate would not follow
        # (another origin), so the second page is asked for as it would be
        await on_prism.fetch(issues, {**REPO, "per_page": 2, "page": 2})
    sent = wire.sent("/repos/octo/hello/issues")
    assert [dict(parse_qsl(r.url.query.decode())) for r in sent] == [
        {"per_page": "2"},
        {"per_page": "2", "page": "2"},
    ]
    for request in sent:
        assert request.headers["accept"] == "application/vnd.github+json"
        assert request.headers["x-github-api-version"] == "2022-11-28"
        assert request.headers["authorization"] == f"Bearer {GITHUB_TOKEN}"
    response = wire.exchanges[0]
    assert first["links"]["next"].url == "https://api.github.com/resource?page=2"
    assert first["link"] == response.headers["link"]
    body = response.json()
    assert len(first["results"]) == len(body) >= 1
    for issue, data in zip(first["results"], body, strict=True):
        assert isinstance(issue, github.Issue)
        assert_typed(issue, data)


@prism
async def test_github_gives_an_issue_as_html_as_described(
    on_prism: Any, wire: Wire, prisms: dict[str, Prism]
) -> None:
    base = github.github_api(prisms["github"].origin, GITHUB_TOKEN)
    # GitHub's examples of this answer hold a reference to an example
    # where the example's value belongs, so Prism would answer {"value":
    # {...}}: Prism makes this answer from the issue schema instead
    issue_html = github.get_issue_html(base).extend(headers={"Prefer": "dynamic=true"})
    with wire.checking():
        issue = await on_prism.fetch(issue_html, {**REPO, "number": 1})
    (response,) = wire.exchanges
    assert response.request.url.path == "/repos/octo/hello/issues/1"
    assert response.request.headers["accept"] == "application/vnd.github.html+json"
    assert response.request.headers["x-github-api-version"] == "2022-11-28"
    body = response.json()
    assert_typed(issue, body)
    assert issue.number == body["number"]
    assert issue.body_html == body.get("body_html")


@prism
async def test_github_not_found_is_read_as_described(
    on_prism: Any, wire: Wire, prisms: dict[str, Prism]
) -> None:
    base = github.github_api(prisms["github"].origin, GITHUB_TOKEN)
    gone = github.get_issue_html(base).extend(headers={"Prefer": "code=404"})
    with wire.checking(), pytest.raises(NotFoundError) as not_found:
        await on_prism.fetch(gone, {**REPO, "number": 7})
    assert isinstance(not_found.value.json()["message"], str)
    assert GITHUB_TOKEN not in str(not_found.value)


# -- the descriptions, and the steps Prism needs (no Prism) -------------------------


@pytest.mark.parametrize("provider", ["stripe", "github"])
def test_each_description_is_its_operations_and_what_they_reference(
    provider: str,
) -> None:
    """Cut again, a vendored description is itself: every operation the
    recipe calls, each component they reach, and nothing else."""
    spec = load(provider)
    assert cut(spec, OPERATIONS[provider]) == spec
    assert {
        path: tuple(m for m in item if m in ("get", "post"))
        for path, item in spec["paths"].items()
    } == OPERATIONS[provider]


def _request_side(spec: Mapping[str, Any]) -> dict[str, Any]:
    """Each operation's parameters and request body, references resolved
    all the way down."""

    def resolve(node: Any) -> Any:
        node = _resolved(spec, node)
        if isinstance(node, dict):
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(each) for each in node]
        return node

    return {
        f"{method} {path}": resolve(
            {key: operation.get(key) for key in ("parameters", "requestBody")}
        )
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if method in ("get", "post")
    }


def test_what_prism_is_given_of_stripe_checks_requests_as_stripe_wrote() -> None:
    spec = load("stripe")
    derived = unexpanded(spec, EXPANDED)
    assert _request_side(derived) == _request_side(spec)
    schemas = derived["components"]["schemas"]
    # the field the recipe expands keeps its expanded forms; others are IDs
    default_source = schemas["customer"]["properties"]["default_source"]
    assert (
        default_source
        == spec["components"]["schemas"]["customer"]["properties"]["default_source"]
    )
    assert schemas["customer"]["properties"]["test_clock"]["anyOf"] == [
        {"maxLength": 5000, "type": "string"}
    ]
    assert "#/components/schemas/card" in referenced(derived)
    assert len(schemas) < len(spec["components"]["schemas"])


def test_what_prism_is_given_of_github_checks_requests_as_github_wrote() -> None:
    spec = load("github")
    derived = offering(spec, GITHUB_MEDIA_TYPES)
    assert _request_side(derived) == _request_side(spec)
    ok = derived["paths"]["/repos/{owner}/{repo}/issues/{issue_number}"]["get"][
        "responses"
    ]["200"]
    assert set(ok["content"]) == {"application/json", *GITHUB_MEDIA_TYPES}
    assert derived["components"]["responses"]["not_found"]["content"].keys() == {
        "application/json",
        *GITHUB_MEDIA_TYPES,
    }
    assert spec == load("github")  # a copy was changed, not the original
