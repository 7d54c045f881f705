"""The OpenAPI document says what errors look like: every error response is an
`application/problem+json` Problem (see `problems.py`), and each operation lists the statuses
it can answer with. The common ones are derived here, once: 422 everywhere (validation), 401
where a security scheme applies, 404 where the path names something, 400 and 413 where a body
is sent.
Routes add the rest (403, 409, 429, 502) with `responses=problem_responses(...)`."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel

PROBLEM_MEDIA_TYPE = "application/problem+json"
_PROBLEM_REF = "#/components/schemas/Problem"


class ProblemField(BaseModel):
    field: str
    message: str


class Problem(BaseModel):
    """An RFC 9457 problem document."""

    type: str
    title: str
    status: int
    detail: str
    errors: list[ProblemField] | None = None


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route that can also answer with these error statuses."""
    return {status: {"description": HTTPStatus(status).phrase} for status in statuses}


def document_problems(app: FastAPI) -> None:
    """Post-process the generated document (once, when it is first asked for)."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            _add_problems(generate())
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _add_problems(schema: dict[str, Any]) -> None:
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    problem = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(problem.pop("$defs", {}))
    schemas["Problem"] = problem
    for path, item in schema.get("paths", {}).items():
        for operation in item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses: dict[str, Any] = operation["responses"]
            statuses = {422}
            if operation.get("security"):
                statuses.add(401)
            if "{" in path:
                statuses.add(404)
            if "requestBody" in operation:
                statuses.update((400, 413))  # a body that is not JSON / UTF-8; too large
            statuses.update(int(code) for code in responses if code.isdigit() and int(code) >= 400)
            for status in sorted(statuses):
                described = responses.get(str(status), {}).get("description")
                responses[str(status)] = {
                    "description": described or HTTPStatus(status).phrase,
                    "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": _PROBLEM_REF}}},
                }
