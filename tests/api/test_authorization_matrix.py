"""Two users, every route: each operation of the OpenAPI document that takes an id or a slug (in
its path, its query or its body), and each web page that does, is called by someone other than
the owner with the owner's ids, and none answers with the owner's data.

The operations come from the document (and the pages from the web package's routers), so a new
route is covered the day it is added: its ids are filled from Ann's world by name (`ann_value`),
and a name this file does not know fails the test until someone gives it one of Ann's ids. Only
the share link is not sent, on purpose (`NOT_SENT`): holding the link *is* the invitation."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from tests.api.owner_world import World, build_world, forget, user_with_role
from tests.conftest import csrf_token, register_and_login
from tutorgraph import web
from tutorgraph.settings import Settings

ID_NAMES = frozenset({"slug", "token", "domain", "topic", "course", "lesson", "concept"})
# Operations that are sent someone else's id and may still answer 2xx, because what they answer
# is the caller's own (checked: no trace of the owner's data in it).
OWN_DATA_ANYWAY = {
    ("get", "/api/v1/search"): "searches the courses the caller may see; `lesson` only narrows",
    ("get", "/api/v1/tutor/sessions"): "the caller's own chats, filtered by lesson",
    ("post", "/api/v1/me/next/take"): "a step that is not yours is ignored: your own is taken",
    ("post", "/next"): "the same, from the page's Continue button",
}
CAPABILITY = "the share link is a capability: holding it is the invitation (a new link replaces it)"
NOT_SENT = {
    ("post", "/api/v1/shares/{token}"): CAPABILITY,
    ("get", "/join/{token}"): CAPABILITY,
    ("post", "/join/{token}"): CAPABILITY,
    ("get", "/{section}"): "the name of a section not built yet (about...), nobody's data",
}
REFUSED = {401, 403, 404}  # a refusal may echo the id it was sent, nothing more
FORM_EXAMPLES = {"target_level": "junior"}  # valid values for required fields that are not ids


def ann_value(world: World, path: str, name: str) -> Any:
    """Ann's id for a parameter or body field called `name` on `path`."""
    if name == "session_id":
        if path.startswith(("/api/v1/constructor", "/create")):
            return world.constructor_session_id
        if path.startswith("/api/v1/explore"):
            return world.explore_session_id
        if path.startswith("/api/v1/tutor/session"):
            return world.guided_session_id
        return world.tutor_session_id
    if name == "question_id":
        if path.startswith(("/api/v1/practice", "/quiz")):
            return world.round_question_id
        if path.startswith(("/api/v1/assessments", "/assess")):
            return world.assessment_question_id
        return world.question_id
    if name == "user_id":
        return world.member_id
    if (path, name) == ("/quiz", "topic"):  # the Practice page's topic menu: domain/topic
        return f"{world.slug}/{world.topic}"
    values: dict[str, Any] = {
        "slug": world.slug,
        "course": world.slug,
        "domain": world.slug,
        "token": world.share_token,
        "topic": world.topic,
        "concept": world.topic,
        "lesson": world.lesson_slug,
        "lesson_slug": world.lesson_slug,
        "lesson_id": world.lesson_id,
        "round_id": world.round_id,
        "assessment_id": world.assessment_id,
        "resume_id": world.resume_id,
        "interview_id": world.interview_id,
        "upload_id": world.upload_id,
        "image_id": world.image_id,
        "alert_id": world.alert_id,
        "step_id": world.step_id,
        "quiz_id": "q1",  # the chat it belongs to is what is checked
    }
    if name not in values:
        raise AssertionError(
            f"{path} takes {name!r}, an id this test does not know: create one as Ann in "
            "tests/api/owner_world.py and name it in ann_value"
        )
    return values[name]


def is_id(name: str) -> bool:
    return name in ID_NAMES or name.endswith("_id") or name.endswith("_slug")


@dataclass(frozen=True)
class Call:
    method: str
    path: str  # as documented, with its {templates}
    url: str
    query: dict[str, Any]
    json: dict[str, Any] | None
    form: dict[str, Any] | None
    files: dict[str, Any] | None

    @property
    def key(self) -> tuple[str, str]:
        return self.method, self.path


class Document:
    """The OpenAPI document, with $refs followed."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            schema = self.doc["components"]["schemas"][name]
        for key in ("anyOf", "oneOf"):
            if key in schema:  # `X | None`: the X
                options = [s for s in schema[key] if s.get("type") != "null"]
                return self.resolve(options[0])
        return schema

    def example(self, schema: dict[str, Any]) -> Any:
        """A valid value for a field that is not an id."""
        schema = self.resolve(schema)
        if "enum" in schema:
            return schema["enum"][0]
        if "const" in schema:
            return schema["const"]
        kind = schema.get("type")
        if kind == "string":
            if schema.get("format") == "binary" or "contentMediaType" in schema:
                return ("notes.md", b"# Notes\n\nA little text.\n")
            return "Tell me more about it"[: schema.get("maxLength", 100)]
        if kind == "integer":
            return max(1, schema.get("minimum", 1))
        if kind == "number":
            return 0.5
        if kind == "boolean":
            return True
        if kind == "array":
            return []
        if kind == "object":
            return self.body(schema, "")[0]
        return None

    def body(
        self, schema: dict[str, Any], path: str, world: World | None = None
    ) -> tuple[dict[str, Any], bool]:
        """A body with every id field Ann's and every other required field filled; and whether
        it holds an id."""
        schema = self.resolve(schema)
        required = set(schema.get("required", []))
        body: dict[str, Any] = {}
        has_id = False
        for name, field in schema.get("properties", {}).items():
            if is_id(name) and world is not None:
                body[name] = ann_value(world, path, name)
                has_id = True
            elif name in required:
                body[name] = self.example(field)
        return body, has_id

    def calls(self, world: World) -> Iterator[Call]:
        """Every operation that takes an id, with Ann's ids in it."""
        for path, operations in self.doc["paths"].items():
            for method, operation in operations.items():
                takes_id = "{" in path
                query: dict[str, Any] = {}
                for parameter in operation.get("parameters", []):
                    name, where = parameter["name"], parameter["in"]
                    if where == "query" and is_id(name):
                        query[name] = ann_value(world, path, name)
                        takes_id = True
                    elif where == "query" and parameter.get("required"):
                        query[name] = self.example(parameter["schema"])
                json_body = form = files = None
                content = operation.get("requestBody", {}).get("content", {})
                if "application/json" in content:
                    json_body, has_id = self.body(
                        content["application/json"]["schema"], path, world
                    )
                    takes_id = takes_id or has_id
                elif "multipart/form-data" in content:
                    fields, has_id = self.body(
                        content["multipart/form-data"]["schema"], path, world
                    )
                    takes_id = takes_id or has_id
                    files = {k: v for k, v in fields.items() if isinstance(v, tuple)}
                    form = {k: v for k, v in fields.items() if not isinstance(v, tuple)}
                if takes_id and (method, path) not in NOT_SENT:
                    yield Call(method, path, fill(world, path), query, json_body, form, files)


def fill(world: World, path: str) -> str:
    """The path with Ann's ids in its {templates}."""
    return re.sub(r"{(\w+)}", lambda m: str(ann_value(world, path, m[1])), path)


def page_calls(world: World) -> Iterator[Call]:
    """Every web page and form that takes an id, from the web package's routers."""
    for module in pkgutil.iter_modules(web.__path__):
        router = getattr(importlib.import_module(f"{web.__name__}.{module.name}"), "router", None)
        for route in router.routes if router is not None else []:
            if not isinstance(route, APIRoute):
                continue
            takes_id = "{" in route.path
            fields: dict[str, dict[str, Any]] = {"query": {}, "form": {}}
            params = [("query", f) for f in route.dependant.query_params]
            params += [("form", f) for f in route.dependant.body_params]
            for where, param in params:
                if is_id(param.name):
                    fields[where][param.name] = ann_value(world, route.path, param.name)
                    takes_id = True
                elif param.field_info.is_required():
                    fields[where][param.name] = FORM_EXAMPLES.get(param.name, "x")
            for method in sorted(m.lower() for m in route.methods):
                if takes_id and (method, route.path) not in NOT_SENT:
                    form = fields["form"] if method == "post" else None
                    url = fill(world, route.path)
                    yield Call(method, route.path, url, fields["query"], None, form, None)


def templated_routes() -> set[tuple[str, str]]:
    found = set()
    for module in pkgutil.iter_modules(web.__path__):
        router = getattr(importlib.import_module(f"{web.__name__}.{module.name}"), "router", None)
        for route in router.routes if router is not None else []:
            if isinstance(route, APIRoute) and "{" in route.path:
                found |= {(method.lower(), route.path) for method in route.methods}
    return found


def send(client: TestClient, call: Call, headers: dict[str, str]) -> Any:
    client.cookies.clear()
    return client.request(
        call.method.upper(),
        call.url,
        params=call.query or None,
        json=call.json,
        data=call.form,
        files=call.files,
        headers=headers,
    )


@pytest.fixture
def settings(any_settings: Settings) -> Settings:
    """On SQLite, and on PostgreSQL when its URL is set: the rule is a query."""
    return any_settings


@pytest.fixture
def world(client: TestClient, settings: Settings) -> Iterator[World]:
    built = build_world(client, settings)
    yield built
    forget(built)


def _intruder(client: TestClient, settings: Settings, intruder: str) -> dict[str, str]:
    """Bob's headers as a learner or an instructor; none for an anonymous visitor."""
    if intruder == "anonymous":
        return {}
    headers = register_and_login(client, "bob@example.org")
    user_with_role(settings, "bob@example.org", intruder)
    return headers


@pytest.mark.parametrize("intruder", ["learner", "instructor", "anonymous"])
def test_no_route_answers_with_another_users_data(
    client: TestClient, settings: Settings, world: World, intruder: str
) -> None:
    headers = _intruder(client, settings, intruder)
    document = Document(client.get("/openapi.json").json())
    calls = list(document.calls(world))
    templated = {(method, path) for path, ops in document.doc["paths"].items() for method in ops}
    templated = {key for key in templated if "{" in key[1]}
    assert templated <= {c.key for c in calls} | set(NOT_SENT)  # every id route is visited

    leaks = []
    for call in calls:
        response = send(client, call, headers)
        body = response.text
        shown = [s for s in world.secrets() if s in body]
        if 200 <= response.status_code < 300:
            if call.key not in OWN_DATA_ANYWAY or shown:
                leaks.append(f"{call.method.upper()} {call.url}: {response.status_code} {shown}")
        elif response.status_code not in REFUSED:
            leaks.append(f"{call.method.upper()} {call.url}: {response.status_code} {body[:200]}")
    assert leaks == [], "\n".join(leaks)

    # nothing the intruder sent changed Ann's world: she still has all of it
    for call in calls:
        if call.method == "get" and call.key not in OWN_DATA_ANYWAY:
            mine = send(client, call, world.ann)
            assert mine.status_code < 300 or call.path.endswith("/scorecard"), (
                call.url,
                mine.status_code,
                mine.text[:200],
            )


def sign_in(client: TestClient, headers: dict[str, str]) -> dict[str, str]:
    """A browser signed in as the bearer of `headers` (none: anonymous): cookie and CSRF token."""
    client.cookies.clear()
    if headers:
        client.cookies.set("tutorgraph_session", headers["Authorization"].split()[1])
    return {"csrf_token": csrf_token(client)}


def visit(client: TestClient, call: Call, signed: dict[str, str]) -> Any:
    form = {**call.form, **signed} if call.form is not None else None
    return client.request(
        call.method.upper(),
        call.url,
        params=call.query or None,
        data=form,
        headers={"accept": "text/html"},
        follow_redirects=False,
    )


@pytest.mark.parametrize("intruder", ["learner", "instructor", "anonymous"])
def test_no_page_shows_another_users_data(
    client: TestClient, settings: Settings, world: World, intruder: str
) -> None:
    headers = _intruder(client, settings, intruder)
    calls = list(page_calls(world))
    assert templated_routes() <= {c.key for c in calls} | set(NOT_SENT)

    signed = sign_in(client, headers)
    leaks = []
    for call in calls:
        response = visit(client, call, signed)
        seen = response.text + response.headers.get("location", "")
        shown = [s for s in world.secrets() if s in seen]
        to_login = response.headers.get("location", "").startswith("/login")
        if response.status_code < 400 and not to_login:
            if call.key not in OWN_DATA_ANYWAY or shown:
                leaks.append(f"{call.method.upper()} {call.url}: {response.status_code} {shown}")
        elif response.status_code >= 400 and response.status_code not in REFUSED:
            leaks.append(f"{call.method.upper()} {call.url}: {response.status_code}")
    assert leaks == [], "\n".join(leaks)

    signed = sign_in(client, world.ann)  # and the pages are there, for Ann
    for call in calls:
        if call.method == "get":
            assert visit(client, call, signed).status_code < 400, call.url
