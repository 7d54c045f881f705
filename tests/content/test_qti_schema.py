"""The QTI 3.0 export against 1EdTech's own schemas: every item of a bank holding every shipped
knowledge-base question (code, math, markdown) and hostile text, and the package manifest, are
valid; the same validator rejects a broken item (so a pass means something). Needs the schemas
(see tests/content/qti_schemas.py for how to get them); skipped without them."""

from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from tests.content import qti_schemas
from tests.content.test_quiz_export import BANK
from tutorgraph.content.quiz_export import ChoiceItem, OpenItem, QuizBank, qti_package
from tutorgraph.knowledge.loader import shipped_domains

etree = pytest.importorskip("lxml.etree")
REPOSITORY = Path(__file__).resolve().parents[2]
SCHEMAS = Path(os.environ.get("TUTORGRAPH_QTI_XSD_DIR") or REPOSITORY / qti_schemas.DEFAULT_DIR)
ITEM_SCHEMA = qti_schemas.item_schema(SCHEMAS)
pytestmark = pytest.mark.skipif(
    ITEM_SCHEMA is None,
    reason="the QTI 3.0 schemas are not here: see tests/content/qti_schemas.py",
)
QTI = "{http://www.imsglobal.org/xsd/imsqtiasi_v3p0}"


def shipped_bank() -> QuizBank:
    open_items = [
        OpenItem(q.id, t.title, q.text, q.reference_answer, list(q.rubric), q.bloom_level.value, 3)
        for kb in shipped_domains().values()
        for t in kb.domain.topics
        for q in t.questions
    ]
    choices = [ChoiceItem("card-1", "Lists", "Which is *mutable*?", ["list", "tuple"], 0, "")]
    return QuizBank(
        "all", "Everything shipped", [*choices, *BANK.choices], [*open_items, *BANK.open_items]
    )


@pytest.fixture(scope="module")
def package() -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(qti_package(shipped_bank())))


def schema(path: Path | None) -> object:
    assert path is not None
    return etree.XMLSchema(etree.parse(str(path)))


def test_every_exported_item_and_the_manifest_are_valid_qti_3(package: zipfile.ZipFile) -> None:
    items = schema(ITEM_SCHEMA)
    names = [n for n in package.namelist() if n.startswith("items/")]
    assert len(names) > 100
    invalid = {}
    for name in names:
        if not items.validate(etree.parse(io.BytesIO(package.read(name)))):
            invalid[name] = str(items.error_log.last_error)
    assert invalid == {}
    manifest = schema(SCHEMAS / qti_schemas.PACKAGE_SCHEMA)
    assert manifest.validate(etree.parse(io.BytesIO(package.read("imsmanifest.xml")))), str(
        manifest.error_log.last_error
    )


def test_the_validator_rejects_a_broken_item(package: zipfile.ZipFile) -> None:
    items = schema(ITEM_SCHEMA)
    name = next(n for n in package.namelist() if n.startswith("items/"))
    document = etree.parse(io.BytesIO(package.read(name)))
    etree.SubElement(document.getroot().find(f"{QTI}qti-item-body"), f"{QTI}img", src="a.png")
    assert not items.validate(document)  # an image straight in the item body is not QTI 3
    document = etree.parse(io.BytesIO(package.read(name)))
    del document.getroot().attrib["identifier"]
    assert not items.validate(document)
