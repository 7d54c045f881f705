"""The tutor benchmark runs end to end on a small load (its numbers belong in BENCHMARKS.md)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO_CONTENT
from tutorgraph_bench.report import write_section
from tutorgraph_bench.tutor import TutorBenchConfig, markdown, run_tutor_benchmark


def test_the_tutor_benchmark_runs_both_servers_and_reports(tmp_path: Path) -> None:
    config = TutorBenchConfig(
        first_token_delay=0.05,
        token_interval=0.0,
        reply_tokens=5,
        sequential=2,
        concurrency=6,
        content_dir=REPO_CONTENT,
    )

    result = run_tutor_benchmark(config)
    report = tmp_path / "BENCH.md"
    write_section(report, "tutor", markdown(result, "tutorgraph bench tutor ..."))

    assert result.errors == []
    assert len(result.concurrent) == 6
    assert all(s.first_text is not None and s.first_text <= s.total for s in result.concurrent)
    text = report.read_text()
    assert "| concurrent chat streams | 6 |" in text and "| errors | 0 |" in text
