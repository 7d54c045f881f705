"""`tutorgraph bench load --tabs`: one learner's requests at once against a real server process
lose nothing, and the report says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO_CONTENT
from tutorgraph_bench.tabs import markdown, run_tabs_benchmark


@pytest.mark.timeout(300)
def test_one_learner_many_tabs_loses_no_update(tmp_path: Path) -> None:
    result = run_tabs_benchmark(
        tabs=12, servers=1, database_url=None, content_dir=REPO_CONTENT, workdir=tmp_path
    )
    assert result.errors == []
    assert result.lost == {
        "mastery attempts": 0,
        "review card reviews": 0,
        "practice answers": 0,
        "step rounds (extra)": 0,
    }
    assert result.statuses["grade 200"] == 6 and result.statuses["take 200"] == 3
    table = markdown([result], "tutorgraph bench load --tabs 12")
    assert "| sqlite | 1 | 12 | 0 | 0 |" in table
