"""The tutor's tool specs: the spec's seven tools plus `search_course`, with `search_web` stripped
whenever web search is not configured."""

from __future__ import annotations

from typing import Any, Literal, get_args

from tutorgraph.llm import ToolSpec
from tutorgraph.settings import SearchSettings
from tutorgraph.tutor.prompts import TOOL_DESCRIPTIONS

ToolName = Literal[
    "search_web",
    "get_lesson_context",
    "get_lesson_transcript",
    "get_lesson_reference_kb",
    "get_curated_resources",
    "get_relevant_images",
    "get_user_progress",
    "search_course",
]
TOOL_NAMES: tuple[ToolName, ...] = get_args(ToolName)

_SLUG = {"type": "string", "description": "Lesson slug; the current lesson when omitted."}
_CONCEPTS = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Concept ids; the lesson's concepts when omitted.",
}


def _parameters(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required)}


_PARAMETERS: dict[ToolName, dict[str, Any]] = {
    "search_web": _parameters(
        {"query": {"type": "string", "description": "What to search the web for."}}, ("query",)
    ),
    "get_lesson_context": _parameters(
        {"lesson_slug": {"type": "string", "description": "Slug of the lesson to fetch."}},
        ("lesson_slug",),
    ),
    "get_lesson_transcript": _parameters({"lesson_slug": _SLUG}),
    "get_lesson_reference_kb": _parameters({"lesson_slug": _SLUG}),
    "get_curated_resources": _parameters(
        {
            "concepts": _CONCEPTS,
            "query": {"type": "string", "description": "Optional words to match."},
        }
    ),
    "get_relevant_images": _parameters(
        {
            "concepts": _CONCEPTS,
            "query": {"type": "string", "description": "Optional words to match."},
        }
    ),
    "get_user_progress": _parameters({}),
    "search_course": _parameters(
        {
            "query": {"type": "string", "description": "What to look for."},
            "lesson_slug": {
                "type": "string",
                "description": (
                    "Limit the search to one lesson; when omitted, the current course's "
                    "passages come first, then other visible courses'."
                ),
            },
            "k": {"type": "integer", "minimum": 1, "maximum": 8, "description": "How many."},
        },
        ("query",),
    ),
}

TUTOR_TOOLS: tuple[ToolSpec, ...] = tuple(
    ToolSpec(name=name, description=TOOL_DESCRIPTIONS[name], parameters=_PARAMETERS[name])
    for name in TOOL_NAMES
)


def tools_for(search: SearchSettings) -> list[ToolSpec]:
    """The full tool list, without `search_web` unless web search is configured."""
    return [tool for tool in TUTOR_TOOLS if tool.name != "search_web" or search.enabled]
