"""The four sub-agent pipelines' nodes (spec: ingestion, structure, quiz generation, validation).
Each node reads and writes its pipeline's state; every decision a node makes is a pure function
in `analysis`, `questions` or `readiness`, so the nodes stay thin."""

from __future__ import annotations

import hashlib
from functools import partial
from typing import Any, TypedDict

from langgraph.runtime import Runtime

from tutorgraph import offload
from tutorgraph.constructor import agents, analysis, programs, questions, readiness
from tutorgraph.constructor.context import ConstructorContext
from tutorgraph.constructor.item_checks import EvidenceIndex, check_items
from tutorgraph.constructor.outline import place_divs
from tutorgraph.constructor.parameters import constructor_parameters
from tutorgraph.constructor.state import (
    CourseStructure,
    FileFailure,
    ImageRef,
    ProgressEvent,
    QuizBank,
    QuizItem,
    ReadinessReport,
    SourceChunk,
    SourceFile,
    SourceSection,
    Topic,
    Unit,
)
from tutorgraph.constructor.text import flatten_divs, salient_terms
from tutorgraph.content.chunking import chunk_markdown
from tutorgraph.content.extract import ExtractionError, extract_isolated, sniff_kind
from tutorgraph.content.extract import extract as extract_file
from tutorgraph.knowledge.bloom import BloomLevel
from tutorgraph.offload import run_blocking
from tutorgraph.wording import counted

ISOLATED_KINDS = frozenset({"pdf", "docx"})

# ---- ingestion: detect_types -> extract -> chunk -> store -> report ------------------------


class IngestionState(TypedDict, total=False):
    upload_ids: list[str]
    kinds: dict[str, str]
    files: list[SourceFile]
    failures: list[FileFailure]
    chunks: list[SourceChunk]
    summary: str


def _say(runtime: Runtime[ConstructorContext], stage: str, message: str, **kw: Any) -> None:
    runtime.context.progress(ProgressEvent(stage=stage, message=message, **kw))


async def detect_types(
    state: IngestionState, runtime: Runtime[ConstructorContext]
) -> IngestionState:
    kinds: dict[str, str] = {}
    failures: list[FileFailure] = []
    uploads = runtime.context.read_uploads(state.get("upload_ids", []))
    for upload in uploads:
        try:
            kinds[upload.upload_id] = sniff_kind(upload.filename, upload.data)
        except ExtractionError as exc:
            failures.append(FileFailure(filename=upload.filename, error=str(exc)))
            runtime.context.mark_upload(upload.upload_id, "", "", 0, 0, str(exc))
    _say(runtime, "ingestion", f"{len(kinds)} of {counted(len(uploads), 'file')} can be read")
    return {"kinds": kinds, "failures": failures}


async def extract(state: IngestionState, runtime: Runtime[ConstructorContext]) -> IngestionState:
    kinds = state.get("kinds", {})
    uploads = runtime.context.read_uploads(list(kinds))
    files: list[SourceFile] = []
    failures = list(state.get("failures", []))
    for done, upload in enumerate(uploads, start=1):  # in the author's (upload) order
        _say(runtime, "ingestion", f"reading {upload.filename}", done=done - 1, total=len(uploads))
        # PDF and Word parsers run in a child process that is killed at the time limit (once
        # a reader slot is free); text formats are read in a thread. Both on the extraction pool.
        reader = extract_isolated if kinds[upload.upload_id] in ISOLATED_KINDS else extract_file
        try:
            document = await offload.run_in_pool(
                "extraction",
                partial(reader, upload.filename, upload.data, limits=runtime.context.limits),
            )
        except ExtractionError as exc:
            failures.append(FileFailure(filename=upload.filename, error=str(exc)))
            runtime.context.mark_upload(
                upload.upload_id, "", kinds[upload.upload_id], 0, 0, str(exc)
            )
            continue
        images = []
        for image in document.images:
            image_id = hashlib.sha256(image.data).hexdigest()[:24]
            runtime.context.store_image(
                image_id, image.name, image.media_type, image.caption, image.data
            )
            images.append(
                ImageRef(
                    image_id=image_id,
                    name=image.name,
                    media_type=image.media_type,
                    caption=image.caption,
                    location=image.location,
                )
            )
        # Exercise divs become the unit's Exercises section, box divs its introduction.
        markdown = flatten_divs(place_divs(document.markdown))
        about = document.metadata
        files.append(
            SourceFile(
                file_id=upload.upload_id,
                filename=upload.filename,
                kind=document.kind,
                # The author's own title (front matter, a PDF's or Word file's metadata title)
                # before the first heading the extractor found.
                title=about.get("title") or document.title,
                markdown=markdown,
                pages=document.pages,
                words=len(markdown.split()),
                images=images,
                warnings=document.warnings,
                description=about.get("description", "") or about.get("summary", ""),
                front_matter=about,
                order=done - 1,
            )
        )
    _say(
        runtime,
        "ingestion",
        f"Read {counted(len(files), 'file')}",
        done=len(uploads),
        total=len(uploads),
    )
    return {"files": files, "failures": failures}


def source_chunks(files: list[SourceFile]) -> list[SourceChunk]:
    """The files' retrievable pieces (heading-aware chunks), ids stable per file."""
    return [
        SourceChunk(
            chunk_id=f"{file.file_id}-c{index}",
            file_id=file.file_id,
            heading_path=list(piece.heading_path),
            text=piece.text,
        )
        for file in files
        for index, piece in enumerate(chunk_markdown(file.markdown))
    ]


async def chunk(state: IngestionState, runtime: Runtime[ConstructorContext]) -> IngestionState:
    chunks = await run_blocking(source_chunks, state.get("files", []))
    _say(runtime, "ingestion", f"Split the text into {counted(len(chunks), 'passage')}")
    return {"chunks": chunks}


async def store(state: IngestionState, runtime: Runtime[ConstructorContext]) -> IngestionState:
    for file in state.get("files", []):
        runtime.context.mark_upload(file.file_id, file.title, file.kind, file.words, file.pages, "")
    return {}


async def report(state: IngestionState, runtime: Runtime[ConstructorContext]) -> IngestionState:
    files, failures = state.get("files", []), state.get("failures", [])
    parts = [f"I read {counted(len(files), 'file')}"]
    if files:
        pages = sum(f.pages for f in files)
        words = sum(f.words for f in files)
        parts.append(f"about {counted(pages, 'page')}, {counted(words, 'word')}")
    summary = ", ".join(parts) + "."
    if failures:
        summary += " Could not read: " + "; ".join(f.error for f in failures) + "."
    _say(runtime, "ingestion", summary)
    return {"summary": summary}


# ---- structure ------------------------------------------------------------------------------


class StructureState(TypedDict, total=False):
    course_title: str
    files: list[SourceFile]
    sections: list[SourceSection]
    proposal: agents.TopicsOutput
    topics: list[Topic]
    units: list[Unit]
    structure: CourseStructure


async def analyze_content(
    state: StructureState, runtime: Runtime[ConstructorContext]
) -> StructureState:
    # Files in the order the author gave them (arguments, uploads); sections in file order.
    sections = [s for f in state.get("files", []) for s in analysis.file_sections(f)]
    _say(runtime, "structure", f"Found {counted(len(sections), 'section')} in your files")
    return {"sections": sections}


async def detect_topics(
    state: StructureState, runtime: Runtime[ConstructorContext]
) -> StructureState:
    files = state.get("files", [])
    sections = state.get("sections", [])
    titles = {f.file_id: f.title for f in files}
    request = agents.TopicsRequest(
        course_title=state.get("course_title", ""),
        # A model sees the taught sections only: exercises and reading lists are never topics.
        sections=agents.outline([s for s in sections if s.role == "lesson"], titles),
        file_sections={f.file_id: [s for s in sections if s.file_id == f.file_id] for f in files},
        file_titles=titles,
    )
    proposal = await agents.propose_topics(runtime.context.model, request)
    if not analysis.covers(proposal, sections):  # a model's topics miss or repeat sections
        proposal = agents.offline_topics(request)
    _say(runtime, "structure", f"Found {counted(len(proposal.topics), 'topic')}")
    return {"proposal": proposal}


async def group_into_units(
    state: StructureState, runtime: Runtime[ConstructorContext]
) -> StructureState:
    sections = state.get("sections", [])
    position = {s.section_id: index for index, s in enumerate(sections)}
    # Topics in the material's order (files as the author gave them, then sections), whatever
    # order a model proposed them in.
    proposed_topics = sorted(state["proposal"].topics, key=lambda t: position[t.section_ids[0]])
    by_id = {s.section_id: s for s in sections}
    ids = analysis.topic_ids([t.title for t in proposed_topics], "")
    texts = ["\n\n".join(by_id[s].text for s in t.section_ids) for t in proposed_topics]
    terms = salient_terms(texts, top=constructor_parameters().topics.key_terms) if texts else []
    topics = []
    for topic_id, proposed, text, key_terms in zip(ids, proposed_topics, texts, terms, strict=True):
        covered = [by_id[s] for s in proposed.section_ids]
        topics.append(
            Topic(
                topic_id=topic_id,
                title=proposed.title,
                unit_id="",
                section_ids=proposed.section_ids,
                key_terms=key_terms,
                summary=analysis.summary_of(text),
                key_points=analysis.key_points(text, key_terms),
                words=sum(s.words for s in covered),
                has_code=any(s.has_code for s in covered),
            )
        )
    files = state.get("files", [])
    keys = analysis.unit_keys(files, sections, [t.section_ids[0] for t in proposed_topics])
    units = analysis.group_units(keys, ids)
    unit_of = {t: u.unit_id for u in units for t in u.topic_ids}
    topics = [t.model_copy(update={"unit_id": unit_of[t.topic_id]}) for t in topics]
    units = analysis.unit_sections(units, topics, sections)
    _say(runtime, "structure", f"Grouped them into {counted(len(units), 'unit')}")
    return {"topics": topics, "units": units}


async def identify_prerequisites(
    state: StructureState, runtime: Runtime[ConstructorContext]
) -> StructureState:
    topics = state.get("topics", [])
    texts = topic_texts(topics, state.get("sections", []))
    output = await agents.find_prerequisites(
        runtime.context.model,
        agents.PrerequisiteRequest(topics=topics, texts=[texts[t.topic_id] for t in topics]),
    )
    found = analysis.earlier_only(topics, {t.topic_id: t.prerequisites for t in output.topics})
    # A later topic only where the text sends the reader there itself ("see Lecture 3").
    references = analysis.explicit_references(
        topics, [texts[t.topic_id] for t in topics], state.get("units", [])
    )
    found = analysis.with_references(topics, found, references)
    topics = [t.model_copy(update={"prerequisites": found.get(t.topic_id, [])}) for t in topics]
    links = sum(len(t.prerequisites) for t in topics)
    _say(
        runtime,
        "structure",
        f"Found {counted(links, 'place')} where a topic builds on an earlier one",
    )
    return {"topics": topics}


async def build_hierarchy(
    state: StructureState, runtime: Runtime[ConstructorContext]
) -> StructureState:
    files = state.get("files", [])
    units = state.get("units", [])
    by_id = {s.section_id: s for s in state.get("sections", [])}
    intro = "\n\n".join(by_id[s].text for s in (units[0].intro_section_ids if units else []))
    # The author's title, else what the material calls itself; "" when nothing names the
    # course (the coordinator asks for it).
    structure = CourseStructure(
        title=state.get("course_title") or analysis.course_title(files),
        description=analysis.course_description(files, intro),
        units=units,
        topics=state.get("topics", []),
    )
    return {"structure": structure}


async def validate_structure(
    state: StructureState, runtime: Runtime[ConstructorContext]
) -> StructureState:
    structure = state["structure"]
    return {
        "structure": structure.model_copy(update={"issues": analysis.structure_issues(structure)})
    }


async def suggest_organization(
    state: StructureState, runtime: Runtime[ConstructorContext]
) -> StructureState:
    structure = state["structure"]
    return {
        "structure": structure.model_copy(update={"suggestions": analysis.suggestions(structure)})
    }


async def finalize_structure(
    state: StructureState, runtime: Runtime[ConstructorContext]
) -> StructureState:
    structure = state["structure"]
    _say(
        runtime,
        "structure",
        f"Proposed {counted(len(structure.units), 'unit')} and "
        f"{counted(len(structure.topics), 'topic')}",
    )
    return {}


def topic_texts(topics: list[Topic], sections: list[SourceSection]) -> dict[str, str]:
    by_id = {s.section_id: s for s in sections}
    return {
        t.topic_id: "\n\n".join(by_id[s].text for s in t.section_ids if s in by_id) for t in topics
    }


def text_before(topic: Topic, sections: list[SourceSection]) -> str:
    """The taught text of the topic's file before its first section (exercises and reading
    lists left out)."""
    ids = set(topic.section_ids)
    first = next((i for i, s in enumerate(sections) if s.section_id in ids), None)
    if first is None:
        return ""
    file_id = sections[first].file_id
    return "\n\n".join(
        s.text for s in sections[:first] if s.file_id == file_id and s.role == "lesson"
    )


# ---- quiz generation ------------------------------------------------------------------------


class QuizState(TypedDict, total=False):
    structure: CourseStructure
    sections: list[SourceSection]
    chunks: list[SourceChunk]
    queue: list[str]
    current: str | None
    draft: list[QuizItem]
    items: list[QuizItem]
    generated: int
    bank: QuizBank


def bloom_plan(topic: Topic) -> list[BloomLevel]:
    """The Bloom levels a topic's questions should reach: recall to application for every
    topic, analysis and evaluation for long ones (`model_requests.analysis_min_words`)."""
    levels = [BloomLevel.REMEMBER, BloomLevel.UNDERSTAND, BloomLevel.APPLY]
    if topic.words >= constructor_parameters().model_requests.analysis_min_words:
        levels += [BloomLevel.ANALYZE, BloomLevel.EVALUATE]
    return levels


async def plan_quiz_generation(state: QuizState, runtime: Runtime[ConstructorContext]) -> QuizState:
    queue = [t.topic_id for t in state["structure"].ordered_topics()]
    _say(runtime, "quiz", f"Writing questions for {counted(len(queue), 'topic')}", total=len(queue))
    return {"queue": queue, "items": [], "generated": 0, "current": None}


async def select_topic(state: QuizState, runtime: Runtime[ConstructorContext]) -> QuizState:
    queue = list(state.get("queue", []))
    return {"current": queue.pop(0) if queue else None, "queue": queue}


async def generate_questions(state: QuizState, runtime: Runtime[ConstructorContext]) -> QuizState:
    structure = state["structure"]
    topic = structure.topic(str(state["current"]))
    sections = state.get("sections", [])
    text = topic_texts([topic], sections)[topic.topic_id]
    vocabularies, commands = await run_blocking(course_vocabulary, structure, sections)
    output = await agents.write_questions(
        runtime.context.model,
        agents.QuizRequest(
            topic=topic,
            text=text,
            earlier=text_before(topic, sections),
            levels=bloom_plan(topic),
            count=runtime.context.items_per_topic,
            siblings=questions.sibling_terms(topic, vocabularies),
            commands=[
                agents.CourseCommand(
                    command=c.command, explanation=c.explanation, language=c.language
                )
                for c in commands
            ],
        ),
    )
    for note in output.notes:
        _say(runtime, "quiz", note)
    draft = [agents.quiz_item(topic, i, q) for i, q in enumerate(output.questions)]
    return {"draft": draft, "generated": state.get("generated", 0) + len(draft)}


CourseVocabulary = tuple[
    list[tuple[Topic, list[questions.SiblingTerm]]], list[programs.ShellCommand]
]
_VOCABULARY: dict[tuple[str, ...], CourseVocabulary] = {}


def course_vocabulary(
    structure: CourseStructure, sections: list[SourceSection]
) -> CourseVocabulary:
    """Each topic's terms (`questions.topic_vocabulary`) and the course's explained shell
    commands: the wrong options of every topic's choice items. Read once per structure (each
    topic's quiz request takes its siblings from it)."""
    key = tuple(f"{t.topic_id}:{','.join(t.section_ids)}" for t in structure.topics)
    found = _VOCABULARY.get(key)
    if found is None:
        texts = topic_texts(structure.topics, sections)
        topics = structure.ordered_topics() or structure.topics
        found = (
            [(t, questions.topic_vocabulary(t, texts[t.topic_id])) for t in topics],
            questions.course_commands([texts[t.topic_id] for t in topics]),
        )
        _VOCABULARY.clear()  # one build's course at a time
        _VOCABULARY[key] = found
    return found


async def validate_questions(state: QuizState, runtime: Runtime[ConstructorContext]) -> QuizState:
    index = EvidenceIndex.of(state.get("chunks", []))
    # Only this topic's draft is checked; the items kept before count for duplicates only.
    checked = check_items(state.get("draft", []), index, earlier=state.get("items", []))
    return {"draft": checked}


async def create_rubrics(state: QuizState, runtime: Runtime[ConstructorContext]) -> QuizState:
    items = [
        item.model_copy(update={"key_points": readiness.rubric_points(item)})
        for item in state.get("draft", [])
    ]
    done = len(state["structure"].topics) - len(state.get("queue", []))
    kept = sum(1 for i in items if i.kept)
    _say(
        runtime,
        "quiz",
        f"{state['structure'].topic(str(state['current'])).title}: {counted(kept, 'question')}",
        done=done,
        total=len(state["structure"].topics),
    )
    return {"items": [*state.get("items", []), *items], "draft": []}


async def check_completion(state: QuizState, runtime: Runtime[ConstructorContext]) -> QuizState:
    return {}


async def finalize_quiz_bank(state: QuizState, runtime: Runtime[ConstructorContext]) -> QuizState:
    items = state.get("items", [])
    bank = QuizBank(
        items=items,
        generated=state.get("generated", 0),
        dropped=sum(1 for i in items if not i.kept),
    )
    _say(
        runtime,
        "quiz",
        f"Quiz bank: {counted(len(bank.kept()), 'question')} kept, {bank.dropped} dropped",
    )
    return {"bank": bank}


# ---- validation -----------------------------------------------------------------------------


class ValidationState(TypedDict, total=False):
    files: list[SourceFile]
    failures: list[FileFailure]
    structure: CourseStructure
    sections: list[SourceSection]
    chunks: list[SourceChunk]
    bank: QuizBank
    checks: list[Any]
    report: ReadinessReport


async def validate_content(
    state: ValidationState, runtime: Runtime[ConstructorContext]
) -> ValidationState:
    check = readiness.content_check(state.get("files", []), state.get("failures", []))
    return {"checks": [check]}


async def validate_course_structure(
    state: ValidationState, runtime: Runtime[ConstructorContext]
) -> ValidationState:
    check = readiness.structure_check(state["structure"])
    return {"checks": [*state.get("checks", []), check]}


async def validate_quiz(
    state: ValidationState, runtime: Runtime[ConstructorContext]
) -> ValidationState:
    index = EvidenceIndex.of(state.get("chunks", []))
    checks = readiness.quiz_checks(
        state["structure"], state["bank"], index, state.get("sections", [])
    )
    return {"checks": [*state.get("checks", []), *checks]}


async def calculate_readiness(
    state: ValidationState, runtime: Runtime[ConstructorContext]
) -> ValidationState:
    report = readiness.score(state.get("checks", []), state["structure"], state["bank"])
    return {"report": report}


async def generate_report(
    state: ValidationState, runtime: Runtime[ConstructorContext]
) -> ValidationState:
    report = state["report"]
    _say(
        runtime, "validation", f"Readiness {report.readiness} out of 100", data=report.model_dump()
    )
    return {}
