"""Turning a model's text reply into a validated pydantic instance, and asking for one."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel, ValidationError

from tutorgraph.llm.prompts import JSON_OBJECT_INSTRUCTIONS, REPAIR_INSTRUCTIONS
from tutorgraph.llm.types import Message, SchemaT

_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*[ \t]*\n?(?P<body>.*?)\n?[ \t]*```\s*$", re.DOTALL)
_SCHEMA_NAME = re.compile(r"[^a-zA-Z0-9_-]")


def strip_fences(text: str) -> str:
    """Drop a surrounding ```json ... ``` fence that many models add despite instructions."""
    match = _FENCE.match(text)
    return match.group("body").strip() if match else text.strip()


def parse_reply(schema: type[SchemaT], text: str) -> SchemaT:
    """Validate the reply against `schema`; raises pydantic's ValidationError if it does not fit."""
    return schema.model_validate_json(strip_fences(text))


def schema_json(schema: type[BaseModel]) -> str:
    return json.dumps(schema.model_json_schema(), separators=(",", ":"))


def json_schema_format(schema: type[BaseModel]) -> ResponseFormatJSONSchema:
    name = _SCHEMA_NAME.sub("_", schema.__name__)[:64] or "reply"
    return {
        "type": "json_schema",
        "json_schema": {"name": name, "schema": schema.model_json_schema(), "strict": False},
    }


def with_schema_instructions(messages: Sequence[Message], schema: type[BaseModel]) -> list[Message]:
    """Append the schema to the system prompt, for servers that only know `json_object` mode."""
    instructions = JSON_OBJECT_INSTRUCTIONS.format(schema=schema_json(schema))
    result = list(messages)
    if result and result[0].role == "system":
        system = result[0]
        content = f"{system.content}\n\n{instructions}" if system.content else instructions
        result[0] = system.model_copy(update={"content": content})
    else:
        result.insert(0, Message.system(instructions))
    return result


def repair_messages(
    messages: Sequence[Message], schema: type[BaseModel], reply: str, error: ValidationError
) -> list[Message]:
    """The conversation plus the bad reply and the validation errors, asking for corrected JSON."""
    repair = REPAIR_INSTRUCTIONS.format(errors=describe_errors(error), schema=schema_json(schema))
    return [*messages, Message.assistant(reply), Message.user(repair)]


def describe_errors(error: ValidationError, *, limit: int = 8) -> str:
    """Where and why validation failed, without echoing the input values."""
    parts = []
    for item in error.errors()[:limit]:
        where = ".".join(str(part) for part in item["loc"]) or "(root)"
        parts.append(f"{where}: {item['msg']}")
    more = error.error_count() - limit
    if more > 0:
        parts.append(f"... and {more} more")
    return "; ".join(parts)
