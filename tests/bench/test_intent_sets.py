"""Every intent label set says by its name what it was used for: the `dev` sets developed the
classifier's cues, the `final` set was scored once, unseen."""

from __future__ import annotations

from pathlib import Path

from tutorgraph_bench.interview import intent_set_use

INTERVIEW = Path(__file__).resolve().parents[2] / "benchmarks" / "interview"


def test_every_shipped_intent_set_is_named_for_its_use() -> None:
    uses = {p.name: intent_set_use(p) for p in sorted(INTERVIEW.glob("intent_labels*.yaml"))}
    assert uses == {
        "intent_labels_dev1.yaml": "development (cues tuned on it)",
        "intent_labels_dev2.yaml": "development (cues tuned on it)",
        "intent_labels_dev3.yaml": "development (cues tuned on it)",
        "intent_labels_final.yaml": "final (scored once, unseen)",
    }
    assert intent_set_use(Path("intent_labels_test.yaml")) == "not recorded in its name"
