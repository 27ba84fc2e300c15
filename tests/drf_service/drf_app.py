"""A Django REST framework service, as DRF's tutorial and Django's defaults
make one: the WSGI app :class:`tests.drf.Drf` serves under gunicorn, in a
process of its own, as the module ``drf_app`` (nothing of Django's is
imported by the tests, nor anything of the tests' by the service).

- Sessions signed in by ``django.contrib.auth.login`` (``sessionid``), which
  rotates the ``csrftoken`` cookie; ``SessionAuthentication`` checks
  ``X-CSRFToken`` against that cookie on every unsafe request of a
  signed-in user (``CsrfViewMiddleware``'s own rules).
- ``IsAuthenticated`` by default: a call with no session is a 403
  ``{"detail": "Authentication credentials were not provided."}``.
- Serializer errors as DRF gives them: ``{"field": ["This field is
  required."]}``, ``{"non_field_errors": [...]}``.
- ``TokenAuthentication`` on ``/api/me/``: the key from DRF's own
  ``obtain_auth_token`` (``/api/token/``), sent as ``Authorization: Token
  <key>``; a key it does not know is a 401 with ``WWW-Authenticate:
  Token``.
- Listings with ``PageNumberPagination`` and ``LimitOffsetPagination``:
  ``{"count", "next", "previous", "results"}``, ``next`` an absolute URL.

Its SQLite file is ``RESTWIRE_DRF_DB`` (a temporary folder's), migrated
and given one user (``RESTWIRE_DRF_USER``, ``name:password``) when the process starts.
"""

from __future__ import annotations

import os
from typing import Any

import django
from django.conf import settings

#: The one user: (username, password), given by ``tests.drf.Drf``.
USER = tuple(os.environ["RESTWIRE_DRF_USER"].split(":", 1))

settings.configure(
    DEBUG=False,
    ALLOWED_HOSTS=["127.0.0.1", "localhost"],
    SECRET_KEY="restwire-tests-only-not-a-secret",
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=[
        "django.contrib.auth",
        "django.contrib.contenttypes",
        "django.contrib.sessions",
        "rest_framework",
        "rest_framework.authtoken",
    ],
    MIDDLEWARE=[
        "django.middleware.security.SecurityMiddleware",
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
    ],
    DATABASES={
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("RESTWIRE_DRF_DB", ":memory:"),
        }
    },
    REST_FRAMEWORK={
        "DEFAULT_AUTHENTICATION_CLASSES": [
            "rest_framework.authentication.SessionAuthentication"
        ],
        "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
        "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
        "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    },
    USE_TZ=True,
    DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    LOGGING_CONFIG=None,
)
django.setup()

from django.contrib.auth import authenticate, get_user_model, login  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.core.wsgi import get_wsgi_application  # noqa: E402
from django.urls import path  # noqa: E402
from django.utils.decorators import method_decorator  # noqa: E402
from django.views.decorators.csrf import ensure_csrf_cookie  # noqa: E402
from rest_framework import generics, serializers, status  # noqa: E402
from rest_framework.authentication import TokenAuthentication  # noqa: E402
from rest_framework.authtoken.views import obtain_auth_token  # noqa: E402
from rest_framework.pagination import (  # noqa: E402
    LimitOffsetPagination,
    PageNumberPagination,
)
from rest_framework.permissions import AllowAny  # noqa: E402
from rest_framework.request import Request  # noqa: E402
from rest_framework.response import Response  # noqa: E402
from rest_framework.views import APIView  # noqa: E402

#: Customers as the listings serve them (no model: a list, which DRF's
#: paginators take as they take a query set).
CUSTOMERS = [{"id": f"cus_{n}", "name": f"Customer {n}"} for n in range(1, 8)]
#: The notes each user saved (this process's memory).
NOTES: list[dict[str, Any]] = []


class Credentials(serializers.Serializer):  # type: ignore[misc]
    username = serializers.CharField()
    password = serializers.CharField()


class Note(serializers.Serializer):  # type: ignore[misc]
    text = serializers.CharField(max_length=40)
    pinned = serializers.BooleanField(default=False)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        if data["text"].strip().lower() == "spam":
            raise serializers.ValidationError("Notes may not be spam.")
        return data


class Customer(serializers.Serializer):  # type: ignore[misc]
    id = serializers.CharField()
    name = serializers.CharField()


@method_decorator(ensure_csrf_cookie, name="dispatch")
class Csrf(APIView):  # type: ignore[misc]
    """Sets the ``csrftoken`` cookie, as a page with a form does before
    anyone signs in (``ensure_csrf_cookie``)."""

    permission_classes = (AllowAny,)

    def get(self, request: Request) -> Response:
        return Response({})


class Login(APIView):  # type: ignore[misc]
    """``django.contrib.auth.login``: a new session, a rotated CSRF token."""

    permission_classes = (AllowAny,)

    def post(self, request: Request) -> Response:
        given = Credentials(data=request.data)
        given.is_valid(raise_exception=True)
        user = authenticate(request._request, **given.validated_data)
        if user is None:
            return Response(
                {"detail": "Unable to log in with provided credentials."},
                status=status.HTTP_400_BAD_REQUEST,
            )
        login(request._request, user)
        return Response({"username": user.get_username()})


class Notes(APIView):  # type: ignore[misc]
    def get(self, request: Request) -> Response:
        mine = [note for note in NOTES if note["owner"] == request.user.get_username()]
        return Response(mine)

    def post(self, request: Request) -> Response:
        if request.data.get("text") == "echo":  # a careless service's error
            cookies = request.COOKIES
            quoted = (
                f"Not with session {cookies.get('sessionid')} "
                f"and token {cookies.get('csrftoken')}."
            )
            return Response({"text": [quoted]}, status=status.HTTP_400_BAD_REQUEST)
        given = Note(data=request.data)
        given.is_valid(raise_exception=True)
        note = {
            "id": len(NOTES) + 1,
            "owner": request.user.get_username(),
            **given.validated_data,
        }
        NOTES.append(note)
        return Response(note, status=status.HTTP_201_CREATED)


class Me(APIView):  # type: ignore[misc]
    """Who the ``Authorization: Token <key>`` names (DRF's
    ``TokenAuthentication``: a 401 with ``WWW-Authenticate: Token`` for a
    key it does not know)."""

    authentication_classes = (TokenAuthentication,)

    def get(self, request: Request) -> Response:
        return Response({"username": request.user.get_username()})


class ForgetToken(APIView):  # type: ignore[misc]
    """The key this call sent is deleted: the next call with it is a 401
    (as when an administrator revokes it)."""

    authentication_classes = (TokenAuthentication,)

    def post(self, request: Request) -> Response:
        request.auth.delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class Pages(PageNumberPagination):  # type: ignore[misc]
    page_size = 3


class Limits(LimitOffsetPagination):  # type: ignore[misc]
    default_limit = 3
    max_limit = 5


class CustomersByPage(generics.ListAPIView):  # type: ignore[misc]
    permission_classes = (AllowAny,)
    serializer_class = Customer
    pagination_class = Pages

    def get_queryset(self) -> list[dict[str, str]]:
        return CUSTOMERS


class CustomersByOffset(CustomersByPage):
    pagination_class = Limits


urlpatterns = [
    path("api/csrf/", Csrf.as_view()),
    path("api/login/", Login.as_view()),
    path("api/notes/", Notes.as_view()),
    path("api/token/", obtain_auth_token),
    path("api/me/", Me.as_view()),
    path("api/me/forget-token/", ForgetToken.as_view()),
    path("api/customers/", CustomersByPage.as_view()),
    path("api/customers-by-offset/", CustomersByOffset.as_view()),
]

call_command("migrate", verbosity=0, interactive=False)
if not get_user_model().objects.filter(username=USER[0]).exists():
    get_user_model().objects.create_user(USER[0], password=USER[1])

application = get_wsgi_application()
