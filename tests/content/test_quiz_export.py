"""Quiz-bank export: whatever a question says, the XML stays well-formed and says it back."""

from __future__ import annotations

import io
import zipfile
from xml.etree import ElementTree as ET

from tutorgraph.content.quiz_export import ChoiceItem, OpenItem, QuizBank, moodle_xml, qti_package

HOSTILE = 'Is `a < b && c > d`? </text><script>alert("x")</script> ]]> &amp;'
BANK = QuizBank(
    "c",
    "Course & co",
    [ChoiceItem("1st-card", "Lesson", HOSTILE, ["yes <", "no &"], 1, HOSTILE)],
    [OpenItem("q 2", "Topic", HOSTILE, HOSTILE, [HOSTILE], "apply", 3)],
)


def test_hostile_text_round_trips_through_qti() -> None:
    archive = zipfile.ZipFile(io.BytesIO(qti_package(BANK)))
    qti = "{http://www.imsglobal.org/xsd/imsqtiasi_v3p0}"
    names = sorted(n for n in archive.namelist() if n.startswith("items/"))
    assert names == ["items/q-1st-card.xml", "items/q-2.xml"]  # identifiers made NCNames
    card = ET.fromstring(archive.read("items/q-1st-card.xml"))
    prompt = card.find(f"{qti}qti-item-body/{qti}qti-choice-interaction/{qti}qti-prompt")
    assert prompt is not None and prompt.text == HOSTILE
    assert card.get("identifier") == "q-1st-card"


def test_hostile_text_round_trips_through_moodle_xml() -> None:
    quiz = ET.fromstring(moodle_xml(BANK))
    texts = [e.text for e in quiz.iter("text")]
    assert texts.count(HOSTILE) >= 3
    assert "$course$/top/Course & co/Lesson" in texts
