"""BENCHMARKS.md sections: each benchmark replaces only its own block; a new one can be placed
next to the section it belongs with."""

from __future__ import annotations

from pathlib import Path

from tutorgraph_bench.report import write_section


def test_a_new_section_goes_after_its_neighbour_and_a_rerun_replaces_it(tmp_path: Path) -> None:
    report = tmp_path / "BENCHMARKS.md"
    write_section(report, "first", "## First")
    write_section(report, "last", "## Last")
    write_section(report, "second", "## Second v1", after="first")
    write_section(report, "second", "## Second v2", after="first")
    text = report.read_text(encoding="utf-8")
    assert text.index("## First") < text.index("## Second v2") < text.index("## Last")
    assert "v1" not in text and text.count("<!-- bench:second -->") == 1
    write_section(report, "orphan", "## Orphan", after="missing")  # no neighbour: at the end
    assert report.read_text(encoding="utf-8").rstrip().endswith("<!-- /bench:orphan -->")
