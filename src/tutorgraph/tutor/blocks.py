"""The structured blocks a tutor reply may carry inside its markdown: `<quiz>`, `<resource>`,
`<image>`, `<flow>` and `<architecture>`, each a JSON object between its tags (Mermaid diagrams are
ordinary ```mermaid fences). The chat UI renders them; the offline tutor writes them with
`render_block`, so both sides share one schema."""

from __future__ import annotations

import re
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

BlockTag = Literal["quiz", "resource", "image", "flow", "architecture"]


class QuizBlock(BaseModel):
    """A multiple-choice check the UI grades in place; the prose around it never says which."""

    id: str = ""
    question: str = Field(min_length=1)
    options: list[str] = Field(min_length=2, max_length=8)
    correct_index: int = Field(ge=0)
    explanation: str = ""
    concept: str = ""

    @model_validator(mode="after")
    def _index_in_range(self) -> QuizBlock:
        if self.correct_index >= len(self.options):
            raise ValueError("correct_index is out of range")
        return self


class ResourceBlock(BaseModel):
    title: str = Field(min_length=1)
    url: str = Field(min_length=1)
    type: str = "article"
    description: str = ""


class ImageBlock(BaseModel):
    src: str = Field(min_length=1)
    caption: str = ""


class FlowStep(BaseModel):
    label: str
    detail: str = ""


class FlowBlock(BaseModel):
    """A step-by-step diagram the UI plays one step at a time."""

    title: str = ""
    steps: list[FlowStep] = Field(min_length=1)


class ArchitectureNode(BaseModel):
    id: str
    label: str
    detail: str = ""
    children: list[ArchitectureNode] = Field(default_factory=list)


class ArchitectureEdge(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    source: str = Field(alias="from")
    target: str = Field(alias="to")
    label: str = ""


class ArchitectureBlock(BaseModel):
    """A component diagram whose nodes can be drilled into."""

    title: str = ""
    nodes: list[ArchitectureNode] = Field(min_length=1)
    edges: list[ArchitectureEdge] = Field(default_factory=list)


BlockT = TypeVar("BlockT", bound=BaseModel)


def block_bodies(text: str, tag: BlockTag) -> list[str]:
    """The raw bodies of every `<tag>...</tag>` in `text`, in order."""
    return [m.strip() for m in re.findall(rf"<{tag}>(.*?)</{tag}>", text, flags=re.DOTALL)]


def parse_blocks(text: str, tag: BlockTag, schema: type[BlockT]) -> list[BlockT]:
    """Every well-formed block of one kind; malformed ones are skipped."""
    parsed = []
    for body in block_bodies(text, tag):
        try:
            parsed.append(schema.model_validate_json(body))
        except ValidationError:
            continue
    return parsed


def render_block(tag: BlockTag, block: BaseModel) -> str:
    return f"<{tag}>{block.model_dump_json(by_alias=True)}</{tag}>"


def strip_blocks(text: str) -> str:
    """The prose of a reply with every structured block removed."""
    return re.sub(r"<(quiz|resource|image|flow|architecture)>.*?</\1>", "", text, flags=re.DOTALL)
