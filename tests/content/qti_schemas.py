"""The official QTI 3.0 schemas for the export's validation test, from a checkout of
oat-sa/qti-sdk (https://github.com/oat-sa/qti-sdk), which carries 1EdTech's XSDs.

The schemas are 1EdTech's ("All Rights Reserved"; use governed by 1EdTech's license), so they
are not in this repository: fetch them once and the test runs, else it is skipped.

    git clone --depth 1 https://github.com/oat-sa/qti-sdk /tmp/qti-sdk
    python -m tests.content.qti_schemas /tmp/qti-sdk

This writes `benchmarks/data/qti-schemas/` (ignored by git; or pass a folder as the second
argument and point TUTORGRAPH_QTI_XSD_DIR at it). Two repairs make the copy in qti-sdk load
offline with lxml, neither touching a QTI element:
- qti-sdk's MathML 3 schema declares the 2010 namespace where QTI references MathML's
  `http://www.w3.org/1998/Math/MathML`: MathML is replaced by a stand-in that accepts any
  content inside `<math>` (the exports carry no MathML);
- qti-sdk's SSML 1.1 core schema declares `http://www.w3.org/2010/10/synthesis` where QTI,
  after 1EdTech's own amendment recorded in that file, uses `http://www.w3.org/2001/10/synthesis`.

Item schema: the base QTI 3.0 ASI schema (`imsqti_asiv3p0_v1p0.xsd`) when the checkout has it,
else its SBAC profile (`imsqti_asiv3p0_sbacv1p0_v1p0.xsd`: the same schema with different
`data-*` extension attributes, which these exports do not use; the snapshot this was first
run on lacked the base file). Package schema: `imsqtiv3p0_imscpv1p2_v1p0.xsd`."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

DEFAULT_DIR = Path("benchmarks/data/qti-schemas")
ITEM_SCHEMAS = ("qtiv3p0/imsqti_asiv3p0_v1p0.xsd", "qtiv3p0/imsqti_asiv3p0_sbacv1p0_v1p0.xsd")
PACKAGE_SCHEMA = "qtiv3p0/imsqtiv3p0_imscpv1p2_v1p0.xsd"
_SCHEMES = "src/qtism/data/storage/xml/schemes"
_NEEDED = [
    PACKAGE_SCHEMA,
    "qtiv3p0/imsqti_metadatav3p0_v1p0.xsd",
    "qtiv3p0/imsqtiv3p0_cpextv1p2_v1p0.xsd",
    "qtiv3p0/imsqtiv3p0_csmv1p1_v1p0.xsd",
    "qtiv3p0/imsqtiv3p0_afa3p0drd_v1p0.xsd",
    "qtiv3p0/imsqtiv3p0_afa3p0pnp_v1p0.xsd",
    "imsmd_loose_v1p3p2.xsd",
    "w3/xml.xsd",
    "w3/XInclude.xsd",
    "w3/ssml11/ssmlv1p1-core.xsd",
    "w3/ssml11/synthesis-nonamespace.xsd",
]
MATHML_STAND_IN = """<?xml version="1.0" encoding="UTF-8"?>
<!-- A stand-in for MathML 3 (see tests/content/qti_schemas.py): any content inside <math>. -->
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified"
           targetNamespace="http://www.w3.org/1998/Math/MathML">
  <xs:element name="math">
    <xs:complexType>
      <xs:sequence>
        <xs:any processContents="lax" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
      <xs:anyAttribute processContents="lax"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""


def prepare(qti_sdk: Path, target: Path = DEFAULT_DIR) -> Path:
    source = qti_sdk / _SCHEMES
    missing = [name for name in _NEEDED if not (source / name).is_file()]
    items = [name for name in ITEM_SCHEMAS if (source / name).is_file()]
    if missing or not items:
        missing += [] if items else [" or ".join(ITEM_SCHEMAS)]
        raise SystemExit(f"{qti_sdk}: not a qti-sdk checkout (missing {', '.join(missing)})")
    for name in [*_NEEDED, *items]:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / name, target / name)
    (target / "w3/mathml3").mkdir(parents=True, exist_ok=True)
    (target / "w3/mathml3/mathml3.xsd").write_text(MATHML_STAND_IN, encoding="utf-8")
    ssml = target / "w3/ssml11/ssmlv1p1-core.xsd"
    ssml.write_text(
        ssml.read_text(encoding="utf-8").replace(
            "http://www.w3.org/2010/10/synthesis", "http://www.w3.org/2001/10/synthesis"
        ),
        encoding="utf-8",
    )
    return target


def item_schema(folder: Path) -> Path | None:
    """The item schema in a prepared folder: the base ASI schema, else its SBAC profile."""
    return next((folder / n for n in ITEM_SCHEMAS if (folder / n).is_file()), None)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit("usage: python -m tests.content.qti_schemas QTI_SDK_CHECKOUT [TARGET]")
    where = prepare(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) == 3 else DEFAULT_DIR)
    print(f"wrote {where}")
