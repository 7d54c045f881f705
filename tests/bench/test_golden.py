"""The golden file's diff names the answers a change moved, so a review reads it at a glance."""

from __future__ import annotations

from tutorgraph_bench.golden import HEADER, difference


def test_the_diff_counts_and_shows_the_moved_answers() -> None:
    rows = ["q-1\tcorrect\tterse\t0.91\t-\t-", "q-1\twrong\tcode\t0.12\tCONCEPTUAL\tm-1"]
    before = HEADER + "\n".join(rows) + "\n"
    after = before.replace("0.12\tCONCEPTUAL\tm-1", "0.45\tCARELESS\t-")
    text = difference(before, after)
    assert text.startswith("1 answer(s) graded differently (- golden, + today):")
    assert "-q-1\twrong\tcode\t0.12\tCONCEPTUAL\tm-1" in text
    assert "+q-1\twrong\tcode\t0.45\tCARELESS\t-" in text
    assert "q-1\tcorrect" not in text  # unchanged rows stay out of the way
