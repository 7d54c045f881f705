"""The paraphrase lexicon as data: its collisions fixed (a threading lock is no pinned version, a
unit of work no neuron, the training process no multiprocessing), every group's example and
counterexample, and the checker and `tutorgraph kb lexicon` refusing a bad file."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from tutorgraph.cli import app
from tutorgraph.text.lexicon import LexiconFormatError, LexiconGroup, read_groups
from tutorgraph.text.lexicon_check import check_lexicon, inflections
from tutorgraph.text.meaning import LEXICON_PATH, Analysis, find, load_lexicon


def reads(text: str) -> list[str]:
    return [token.text for token in Analysis.of(text).tokens]


def says(phrasing: str, answer: str) -> float:
    match = find(Analysis.of(phrasing), Analysis.of(answer))
    return 0.0 if match.contradicted else match.share


# --- the collisions of issue 33


def test_a_lock_file_and_exact_versions_stay_two_ideas() -> None:
    # Was `pin pin pin`: one token, too little for the grader to credit as a key point.
    phrasing = Analysis.of("pin exact versions in a lock file")
    assert set(phrasing.texts) == {"pin", "lockfil"}
    match = find(phrasing, Analysis.of("I pinned every version and committed the lockfile"))
    assert match.share == 1.0 and match.specific


def test_a_threading_lock_is_neither_a_pin_nor_a_decorator() -> None:
    # Was `decor increment thread pin`.
    assert reads("wrap the increment in a threading lock") == [
        "wrap",
        "increment",
        "thread",
        "lock",
    ]
    assert says("pin the dependency versions", "take a threading lock around the update") == 0.0


@pytest.mark.parametrize(
    "text", ["the training process", "attention processes one token at a time"]
)
def test_a_process_is_multiprocessing_only_among_threads_and_cores(text: str) -> None:
    assert says("use multiprocessing", text) == 0.0
    assert says("use multiprocessing", "use processes: threads share one GIL") == 1.0


def test_a_phrasing_that_says_process_plainly_finds_multiprocessing() -> None:
    # "processes for images" names no thread or GIL: it may mean multiprocessing, so an answer
    # that says multiprocessing says it; the answer's plain "process" would not say
    # multiprocessing to a phrasing that does.
    assert says("processes for images", "use multiprocessing for the images") == 1.0
    assert says("multiprocessing for images", "process the images one by one") < 1.0


@pytest.mark.parametrize(
    "text", ["a unit of work", "run the unit tests", "fix the units of the price column"]
)
def test_a_unit_is_a_neuron_only_in_a_network(text: str) -> None:
    assert "neuron" not in reads(text)
    assert says("neurons", text) == 0.0
    assert says("128 neurons", "the hidden layer has 128 units") == 1.0


def test_everyday_senses_stay_everyday() -> None:
    assert "object" not in reads("for instance, a tuple")
    assert reads("what does it mean") == []  # a filler, not the statistic
    assert "averag" in reads("subtract the mean of each feature")
    assert "error" not in reads("regularisation raises bias")
    assert "rescal" not in reads("multiprocessing scales with cores")


def test_a_word_read_in_context_keeps_its_opposites() -> None:
    # "close" is cleanup only near a file or a connection; "open" still denies it there.
    match = find(Analysis.of("the file is closed"), Analysis.of("the file is left open"))
    assert match.contradicted


# --- every group of the shipped lexicon

GROUPS = read_groups(LEXICON_PATH)


@pytest.mark.parametrize("group", GROUPS, ids=[g.canonical for g in GROUPS])
def test_each_group_reads_its_example_and_not_its_counterexample(group: LexiconGroup) -> None:
    idea = Analysis.of(group.canonical)
    for example in group.example:
        match = find(idea, Analysis.of(example))
        assert (match.share, match.contradicted) == (1.0, False), (example, reads(example))
    for counterexample in group.counterexample:
        assert find(idea, Analysis.of(counterexample)).share == 0.0, reads(counterexample)


def test_the_shipped_lexicon_passes_its_check() -> None:
    report = check_lexicon()
    assert report.problems == ()
    assert report.groups == len(GROUPS) and report.in_context > 0


# --- the checker refuses a bad file

GOOD = """\
- entries: [change, modify]
  domain: general
  example: "append modifies the list"
  counterexample: "the list stays as it was"
"""


def check(tmp_path: Path, groups: str) -> tuple[str, ...]:
    path = tmp_path / "lexicon.yaml"
    path.write_text("groups:\n" + groups, encoding="utf-8")
    return check_lexicon(path).problems


def test_a_good_file_passes(tmp_path: Path) -> None:
    assert check(tmp_path, GOOD) == ()


def test_an_entry_in_two_groups_is_refused(tmp_path: Path) -> None:
    other = GOOD.replace("[change, modify]", "[alter, modify]")
    (problem,) = check(tmp_path, GOOD + other)
    assert "'modify' is in two groups: group 1 (change) and group 2 (alter)" in problem
    with pytest.raises(ValueError, match="two groups"):
        load_lexicon(tmp_path / "lexicon.yaml")


def test_entries_the_stemmer_makes_one_are_in_two_groups(tmp_path: Path) -> None:
    token = GOOD.replace("[change, modify]", "[token, subword]")
    tokenizer = GOOD.replace("[change, modify]", "[tokeniser, tokenizer]")
    (problem,) = check(tmp_path, token + tokenizer)
    assert "'tokenizer' is in two groups" in problem


def test_a_missing_example_names_the_group(tmp_path: Path) -> None:
    (problem,) = check(tmp_path, GOOD.replace('  example: "append modifies the list"\n', ""))
    assert "group 1 (change), example: Field required" in problem
    with pytest.raises(LexiconFormatError, match="example"):
        load_lexicon(tmp_path / "lexicon.yaml")


def test_an_example_that_is_not_read_as_the_group_is_refused(tmp_path: Path) -> None:
    (problem,) = check(tmp_path, GOOD.replace("append modifies the list", "append adds an item"))
    assert "example 'append adds an item' uses no entry but the first" in problem
    (problem,) = check(tmp_path, GOOD.replace("append modifies the list", "nothing modifies it"))
    assert "is not read as 'change'" in problem


def test_a_counterexample_read_as_the_group_is_refused(tmp_path: Path) -> None:
    (problem,) = check(tmp_path, GOOD.replace("the list stays as it was", "we modify the list"))
    assert "counterexample 'we modify the list' is read as 'change'" in problem


def test_a_bare_everyday_word_in_a_domain_group_is_refused(tmp_path: Path) -> None:
    lock = """\
- entries: [pin, lock, lock file]
  domain: python
  example: "keep the lock file in git"
  counterexample: "wrap the update in a threading mutex"
"""
    (problem,) = check(tmp_path, lock)
    assert "'lock' is (or stems like) an everyday word" in problem
    assert check(tmp_path, lock.replace("domain: python", "domain: general")) == ()


def test_an_everyday_word_under_when_needs_a_counterexample_without_context(
    tmp_path: Path,
) -> None:
    unit = """\
- entries: [neuron, unit]
  domain: ml
  when: {entries: [unit], context: [layer, hidden]}
  example: "the hidden layer has 128 units"
  counterexample: "the dropout rate is 0.5"
"""
    (problem,) = check(tmp_path, unit)
    assert "a counterexample must use one of when.entries" in problem
    assert check(tmp_path, unit.replace("the dropout rate is 0.5", "a unit of work")) == ()


def test_when_cannot_hold_the_first_entry_or_strangers(tmp_path: Path) -> None:
    first = GOOD + "  when: {entries: [change], context: [list]}\n"
    (problem,) = check(tmp_path, first)
    assert "the first entry ('change') names the group" in problem
    stranger = GOOD + "  when: {entries: [alter], context: [list]}\n"
    (problem,) = check(tmp_path, stranger)
    assert "when.entries ['alter'] are not entries of this group" in problem


def test_the_old_list_of_lists_format_is_explained(tmp_path: Path) -> None:
    problems = check(tmp_path, "- [change, modify]\n")
    assert "a group is a mapping with entries, domain, example and counterexample" in problems[0]


def test_inflections_cover_regular_forms() -> None:
    assert {"locks", "locked", "locking"} <= inflections("lock")
    assert {"fits", "fitted", "fitting"} <= inflections("fit")
    assert {"libraries", "freezing"} <= inflections("library") | inflections("freeze")


# --- the command

runner = CliRunner()


def test_kb_lexicon_passes_the_shipped_file() -> None:
    result = runner.invoke(app, ["kb", "lexicon"])
    assert result.exit_code == 0, result.output
    assert f"ok {LEXICON_PATH}: {len(GROUPS)} groups" in " ".join(result.output.split())


def test_kb_lexicon_exits_2_and_lists_every_problem(tmp_path: Path) -> None:
    path = tmp_path / "lexicon.yaml"
    lock = GOOD.replace("[change, modify]", "[pin, lock]").replace("general", "python")
    path.write_text("groups:\n" + GOOD + lock.replace("append modifies", "we lock"))
    result = runner.invoke(app, ["kb", "lexicon", str(path)])
    assert result.exit_code == 2
    output = " ".join(result.output.split())
    assert "'lock' is (or stems like) an everyday word" in output
    assert f"{path}: 1 lexicon problem" in output
