"""A course's quiz bank for other systems: QTI 3.0 (a content package: `imsmanifest.xml` and one
`qti-assessment-item` per question) and Moodle XML (a question-bank import file).

The bank is every lesson's multiple-choice card (a QTI choice interaction scored by the
match_correct template; a Moodle `multichoice`) and every knowledge-base question on the
concepts the course teaches (a QTI extended-text interaction with the reference answer and
rubric in a scorer-only rubric block; a Moodle `essay` with them as grader information). Text
is kept as written (markdown); every string is escaped by the XML writer."""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass
from xml.etree import ElementTree as ET

from tutorgraph.knowledge import VisibleKnowledge
from tutorgraph.store.courses import course_concepts, course_lessons
from tutorgraph.store.models import LearningPath

QTI_NS = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
QTI_XSD = "https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqti_asiv3p0p1_v1p0.xsd"
CP_NS = "http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1"
CP_XSD = "https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqtiv3p0_imscpv1p2_v1p0.xsd"
XSI = "http://www.w3.org/2001/XMLSchema-instance"
MATCH_CORRECT = "https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/match_correct.xml"
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class ChoiceItem:
    identifier: str
    category: str  # the lesson
    prompt: str
    options: list[str]
    correct: int
    explanation: str  # Moodle's general feedback (QTI has no place for it without processing)


@dataclass(frozen=True)
class OpenItem:
    identifier: str
    category: str  # the concept
    prompt: str
    reference_answer: str
    rubric: list[str]
    bloom_level: str
    difficulty: int


@dataclass(frozen=True)
class QuizBank:
    course_slug: str
    title: str
    choices: list[ChoiceItem]
    open_items: list[OpenItem]

    @property
    def size(self) -> int:
        return len(self.choices) + len(self.open_items)

    @property
    def items(self) -> list[ChoiceItem | OpenItem]:
        return [*self.choices, *self.open_items]


def quiz_bank(course: LearningPath, knowledge: VisibleKnowledge) -> QuizBank:
    """The course's cards and the questions of its concepts, from the domains the exporting
    user may see (`knowledge`)."""
    choices: list[ChoiceItem] = []
    for lesson in course_lessons(course):
        for card in lesson.quiz or []:
            if not isinstance(card, dict) or not {"id", "question", "options"} <= set(card):
                continue
            correct = int(card.get("correct_index", -1))
            if not 0 <= correct < len(card["options"]):
                continue
            choices.append(
                ChoiceItem(
                    identifier=f"{lesson.slug}-{card['id']}",
                    category=lesson.title,
                    prompt=str(card["question"]),
                    options=[str(o) for o in card["options"]],
                    correct=correct,
                    explanation=str(card.get("explanation") or ""),
                )
            )
    open_items: list[OpenItem] = []
    for concept in course_concepts(course):
        found = knowledge.topic(concept)
        if found is None:
            continue
        topic = found[1]
        for question in sorted(topic.questions, key=lambda q: (q.bloom_level.rank, q.id)):
            open_items.append(
                OpenItem(
                    identifier=question.id,
                    category=topic.title,
                    prompt=question.text,
                    reference_answer=question.reference_answer,
                    rubric=list(question.rubric),
                    bloom_level=question.bloom_level.value,
                    difficulty=question.difficulty,
                )
            )
    return QuizBank(course.slug, course.title, choices, open_items)


def _identifier(text: str) -> str:
    """A QTI identifier (an NCName: a letter first, then letters, digits, - _ .)."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "item"
    return cleaned if cleaned[0].isalpha() else f"q-{cleaned}"


# ---- QTI 3.0 ----------------------------------------------------------------------------------


def qti_package(bank: QuizBank) -> bytes:
    """The QTI 3.0 content package (zip) of the bank."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as package:
        hrefs = []
        for item in bank.items:
            identifier = _identifier(item.identifier)
            href = f"items/{identifier}.xml"
            package.writestr(href, _xml(qti_item(item)))
            hrefs.append((identifier, href))
        package.writestr("imsmanifest.xml", _xml(_manifest(bank, hrefs)))
    return buffer.getvalue()


def qti_item(item: ChoiceItem | OpenItem) -> ET.Element:
    root = ET.Element(
        "qti-assessment-item",
        {
            "xmlns": QTI_NS,
            "identifier": _identifier(item.identifier),
            "title": _title(item.prompt),
            "adaptive": "false",
            "time-dependent": "false",
            "{http://www.w3.org/XML/1998/namespace}lang": "en",
            f"{{{XSI}}}schemaLocation": f"{QTI_NS} {QTI_XSD}",
        },
    )
    if isinstance(item, ChoiceItem):
        declaration = ET.SubElement(
            root,
            "qti-response-declaration",
            {"identifier": "RESPONSE", "cardinality": "single", "base-type": "identifier"},
        )
        correct = ET.SubElement(declaration, "qti-correct-response")
        ET.SubElement(correct, "qti-value").text = LETTERS[item.correct]
    else:
        ET.SubElement(
            root,
            "qti-response-declaration",
            {"identifier": "RESPONSE", "cardinality": "single", "base-type": "string"},
        )
    scoring = {"identifier": "SCORE", "cardinality": "single", "base-type": "float"}
    if isinstance(item, OpenItem):
        scoring["external-scored"] = "human"  # an essay: a grader scores it with the rubric
    outcome = ET.SubElement(root, "qti-outcome-declaration", scoring)
    default = ET.SubElement(outcome, "qti-default-value")
    ET.SubElement(default, "qti-value").text = "0"
    body = ET.SubElement(root, "qti-item-body")
    if isinstance(item, ChoiceItem):
        interaction = ET.SubElement(
            body,
            "qti-choice-interaction",
            {"response-identifier": "RESPONSE", "shuffle": "false", "max-choices": "1"},
        )
        ET.SubElement(interaction, "qti-prompt").text = item.prompt
        for index, option in enumerate(item.options):
            choice = ET.SubElement(interaction, "qti-simple-choice", {"identifier": LETTERS[index]})
            choice.text = option
        ET.SubElement(root, "qti-response-processing", {"template": MATCH_CORRECT})
        return root
    interaction = ET.SubElement(
        body,
        "qti-extended-text-interaction",
        {"response-identifier": "RESPONSE", "expected-lines": "8"},
    )
    ET.SubElement(interaction, "qti-prompt").text = item.prompt
    rubric = ET.SubElement(body, "qti-rubric-block", {"use": "scoring", "view": "scorer"})
    content = ET.SubElement(rubric, "qti-content-body")
    ET.SubElement(content, "p").text = f"Reference answer: {item.reference_answer}"
    points = ET.SubElement(content, "ul")
    for point in item.rubric:
        ET.SubElement(points, "li").text = point
    return root


def _manifest(bank: QuizBank, hrefs: list[tuple[str, str]]) -> ET.Element:
    manifest = ET.Element(
        "manifest",
        {
            "xmlns": CP_NS,
            "identifier": _identifier(f"manifest-{bank.course_slug}"),
            f"{{{XSI}}}schemaLocation": f"{CP_NS} {CP_XSD}",
        },
    )
    metadata = ET.SubElement(manifest, "metadata")
    ET.SubElement(metadata, "schema").text = "QTI Package"
    ET.SubElement(metadata, "schemaversion").text = "3.0.0"
    ET.SubElement(manifest, "organizations")
    resources = ET.SubElement(manifest, "resources")
    for identifier, href in hrefs:
        resource = ET.SubElement(
            resources,
            "resource",
            {"identifier": identifier, "type": "imsqti_item_xmlv3p0", "href": href},
        )
        ET.SubElement(resource, "file", {"href": href})
    return manifest


# ---- Moodle XML -------------------------------------------------------------------------------


def moodle_xml(bank: QuizBank) -> bytes:
    """The bank as a Moodle question-bank import file, a category per lesson and concept."""
    quiz = ET.Element("quiz")
    current = None
    for item in bank.items:
        if item.category != current:
            current = item.category
            category = ET.SubElement(quiz, "question", {"type": "category"})
            _text(category, "category", f"$course$/top/{bank.title}/{item.category}")
        if isinstance(item, ChoiceItem):
            question = ET.SubElement(quiz, "question", {"type": "multichoice"})
            _common(question, item.identifier, item.prompt)
            _text(question, "generalfeedback", item.explanation, markdown=True)
            for tag, value in (
                ("single", "true"),
                ("shuffleanswers", "true"),
                ("answernumbering", "abc"),
            ):
                ET.SubElement(question, tag).text = value
            for index, option in enumerate(item.options):
                answer = ET.SubElement(
                    question,
                    "answer",
                    {"fraction": "100" if index == item.correct else "0", "format": "markdown"},
                )
                ET.SubElement(answer, "text").text = option
                _text(answer, "feedback", "")
        else:
            question = ET.SubElement(quiz, "question", {"type": "essay"})
            _common(question, item.identifier, item.prompt)
            for tag, value in (
                ("responseformat", "editor"),
                ("responserequired", "1"),
                ("responsefieldlines", "10"),
                ("attachments", "0"),
                ("attachmentsrequired", "0"),
            ):
                ET.SubElement(question, tag).text = value
            grader = f"{item.reference_answer}\n\nA full answer covers:\n" + "\n".join(
                f"- {point}" for point in item.rubric
            )
            _text(question, "graderinfo", grader, markdown=True)
            _text(question, "responsetemplate", "")
            tags = ET.SubElement(question, "tags")
            for value in (f"bloom:{item.bloom_level}", f"difficulty:{item.difficulty}"):
                _text(tags, "tag", value)
    return _xml(quiz)


def _common(question: ET.Element, identifier: str, prompt: str) -> None:
    _text(question, "name", _title(prompt))
    _text(question, "questiontext", prompt, markdown=True)
    ET.SubElement(question, "defaultgrade").text = "1"
    ET.SubElement(question, "penalty").text = "0.3333333"
    ET.SubElement(question, "hidden").text = "0"
    ET.SubElement(question, "idnumber").text = identifier


def _text(parent: ET.Element, tag: str, value: str, *, markdown: bool = False) -> None:
    element = ET.SubElement(parent, tag, {"format": "markdown"} if markdown else {})
    ET.SubElement(element, "text").text = value


def _title(prompt: str) -> str:
    words = " ".join(prompt.replace("`", "").split())
    return words if len(words) <= 80 else words[:79].rstrip() + "…"


def _xml(root: ET.Element) -> bytes:
    ET.register_namespace("xsi", XSI)
    ET.indent(root)
    written: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return written
