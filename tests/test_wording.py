from __future__ import annotations

from tutorgraph.wording import counted


def test_counts_read_in_the_right_number() -> None:
    assert counted(1, "gap") == "1 gap"
    assert [counted(n, "gap topic") for n in (0, 2)] == ["0 gap topics", "2 gap topics"]
    assert counted(3, "analysis", "analyses") == "3 analyses"
