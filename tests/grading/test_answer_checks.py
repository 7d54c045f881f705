"""Answer checks: code found in a free answer, run against cases in the sandbox (or read
statically without one), numbers found and compared, and the verdict built from both."""

from __future__ import annotations

import pytest

from tutorgraph.grading.checks.extract import extract
from tutorgraph.grading.checks.grade import apply_checks, run_checks
from tutorgraph.grading.checks.numbers import check_numbers, read_numbers
from tutorgraph.grading.checks.run import check_code, same
from tutorgraph.grading.checks.spec import AnswerChecks, NumberCheck
from tutorgraph.grading.offline import OfflineGrader
from tutorgraph.grading.types import GradingRequest, KnownMisconception
from tutorgraph.sandbox import sandbox_available

needs_sandbox = pytest.mark.skipif(not sandbox_available(), reason="needs bubblewrap")

COMPREHENSIONS = AnswerChecks.model_validate(
    {
        "solution": "[n * n for n in nums if n % 2 == 0]\n{w: len(w) for w in words if len(w) > 3}"
        "\n{w[0] for w in words if w}",
        "cases": [
            {
                "name": "the squares of the even numbers",
                "given": "nums = [1, 2, 3, 4]; words = []",
                "expect": "[4, 16]",
                "points": ["filter as a trailing if"],
            },
            {
                "name": "lengths of the long words",
                "given": "nums = []; words = ['tree', 'a', 'house', '']",
                "expect": "{'tree': 4, 'house': 5}",
                "points": ["dict comprehension"],
            },
            {
                "name": "first letters of the non-empty words",
                "given": "nums = []; words = ['tree', 'a', 'house', '']",
                "expect": "{'t', 'a', 'h'}",
                "points": ["set comprehension"],
            },
        ],
        "requires": ["ast:ListComp", "ast:DictComp", "ast:SetComp"],
    }
)
RIGHT = (
    "`[n*n for n in nums if n % 2 == 0]` / `{w: len(w) for w in words if len(w) > 3}` / "
    "`{w[0] for w in words if w}`"
)


class TestExtract:
    def test_inline_spans_split_by_slashes(self) -> None:
        found = extract(RIGHT)
        assert found.code.splitlines() == [
            "[n*n for n in nums if n % 2 == 0]",
            "{w: len(w) for w in words if len(w) > 3}",
            "{w[0] for w in words if w}",
        ]

    def test_bare_lines_fences_and_prose(self) -> None:
        answer = "ok so:\n```python\ndef f(x):\n    return x + 1\n```\nit adds one"
        found = extract(answer)
        assert found.code == "def f(x):\n    return x + 1"
        assert "it adds one" in found.prose and "return" not in found.prose
        bare = extract("Use this:\nnames = sorted(names, key=str.lower)\nprint(names)\nDone.")
        assert bare.code == "names = sorted(names, key=str.lower)\nprint(names)"

    def test_code_written_inside_a_sentence(self) -> None:
        found = extract("The list is [n*n for n in nums if n % 2 == 0] and that is it.")
        assert found.code == "[n*n for n in nums if n % 2 == 0]"
        named = extract("Call `sorted()`, not `list.sort()`.")
        assert named.code == ""  # names of functions, not code that does something

    def test_a_run_that_opens_like_code_keeps_its_syntax_error(self) -> None:
        assert extract("def f(x)\n    return x").code == "def f(x)\n    return x"

    def test_toml_lines_among_prose(self) -> None:
        answer = 'Here:\n[project]\nname = "t"\ndependencies = [\n  "requests>=2.28",\n]\nDone.'
        found = extract(answer, "toml")
        assert found.code.startswith("[project]") and found.code.endswith("]")
        assert found.prose == "Here:\nDone."


@needs_sandbox
class TestRun:
    def test_the_right_code_passes_every_case(self) -> None:
        report = check_code(COMPREHENSIONS, RIGHT)
        assert report.ran and report.passed == 3 and report.problem is None

    def test_a_value_of_another_kind_is_not_called_the_expected_kind(self) -> None:
        checks = COMPREHENSIONS.model_copy(
            update={"cases": [COMPREHENSIONS.cases[0].model_copy(update={"expr": "_pick()"})]}
        )
        checks = checks.model_copy(update={"setup": "def _pick():\n    return {'a': 1}"})
        message = check_code(checks, "[n for n in nums]").cases[0].message
        assert "your list" not in message and "gives `{'a': 1}`" in message

    def test_a_failing_case_is_named_with_input_value_and_expectation(self) -> None:
        slip = "[n*n for n in nums if n % 2]\n{w: len(w) for w in words if len(w) > 3}\n"
        slip += "{w[0] for w in words if w}"
        report = check_code(COMPREHENSIONS, slip)
        failing = [c for c in report.cases if not c.passed]
        assert [c.name for c in failing] == ["the squares of the even numbers"]
        assert failing[0].message == (
            "For `nums = [1, 2, 3, 4]; words = []` your list is `[1, 9]`; expected `[4, 16]`."
        )

    def test_a_loop_that_never_ends_is_a_timeout_not_a_crash(self) -> None:
        report = check_code(COMPREHENSIONS, "```python\nwhile True:\n    pass\n```")
        assert report.problem == "timeout" and report.passed == 0
        assert "did not finish" in report.message
        swallowed = "while True:\n    try:\n        pass\n    except BaseException:\n        pass"
        assert check_code(COMPREHENSIONS, swallowed).problem == "timeout"

    def test_an_exit_ends_the_run_with_a_message(self) -> None:
        report = check_code(COMPREHENSIONS, "import os\nos._exit(0)")
        assert report.problem == "crashed" and "ended the run" in report.message

    def test_the_expected_value_never_enters_the_sandbox(self) -> None:
        # The answer searches every object the sandbox's process holds for the expected
        # literal and produces it: it would pass, were the expectation sent into the sandbox.
        spy = (
            "import gc\n"
            "found = [o for o in gc.get_objects() if isinstance(o, (list, str, dict))]\n"
            "hits = [o for o in found if repr(o).replace(' ', '') in ('[4,16]', \"'[4,16]'\")]\n"
            "[4, 16] if hits else []"
        )
        report = check_code(COMPREHENSIONS, spy)
        assert report.passed == 0

    def test_documents_are_parsed_and_read(self) -> None:
        toml = AnswerChecks.model_validate(
            {
                "language": "toml",
                "solution": '[project]\nname = "t"',
                "cases": [{"name": "the name", "expr": "doc['project']['name']", "expect": "'t'"}],
            }
        )
        assert check_code(toml, '```toml\n[project]\nname = "t"\n```').passed == 1
        broken = check_code(toml, '```toml\n[project\nname = "t"\n```')
        assert broken.passed == 0 and "TOMLDecodeError" in broken.cases[0].message


class TestRefusedOrStatic:
    def test_a_syntax_error_is_a_sure_grade_not_an_unsure_one(self) -> None:
        request = GradingRequest(
            question="Write three one-line expressions.",
            reference_answer="`[n * n for n in nums if n % 2 == 0]`",
            answer="```python\ndef f(x)\n    return x\n```",
            rubric=["filter as a trailing if"],
            checks=COMPREHENSIONS,
        )
        verdict = OfflineGrader().grade(request)
        checked = apply_checks(request, verdict, run_checks(COMPREHENSIONS, request.answer))
        assert checked.error_type == "CARELESS" and checked.certainty >= 0.8

    def test_syntax_error_is_reported_not_run(self) -> None:
        report = check_code(COMPREHENSIONS, "```python\ndef f(x)\n    return x\n```")
        assert report.problem == "syntax" and "line 1" in report.message

    @needs_sandbox
    def test_a_third_party_import_is_named_when_cases_fail(self) -> None:
        report = check_code(COMPREHENSIONS, "import numpy as np\nnp.array(nums)")
        assert report.passed == 0 and "standard library" in report.message

    def test_a_signature_without_a_body_is_completed(self) -> None:
        report = check_code(COMPREHENSIONS, "```python\ndef fetch(url, *, timeout=None):\n```")
        assert report.problem != "syntax"

    def test_code_quoting_the_question_is_not_the_answer(self) -> None:
        found = extract(
            "`names = names.sort()` stores None; write `names = sorted(names, key=str.lower)`.",
            question="This prints None.\n\n    names = names.sort()\n    print(names)",
        )
        assert found.code == "names = sorted(names, key=str.lower)"

    def test_forbidden_names(self) -> None:
        checks = COMPREHENSIONS.model_copy(update={"forbid": ["import:collections"]})
        report = check_code(checks, "from collections import Counter\nCounter(nums)")
        assert report.problem == "forbidden"

    def test_without_running_the_code_is_read_for_what_requires_names(self) -> None:
        report = check_code(COMPREHENSIONS, RIGHT.rsplit(" / ", 1)[0], run=False)
        assert not report.ran and report.share == pytest.approx(2 / 3)
        assert "not run" in report.message and "SetComp" in report.message


class TestNumbers:
    @pytest.mark.parametrize(
        ("text", "wanted"),
        [
            ("weights 0.67 and 0.33", [0.67, 0.33]),
            ("about 124M", [124e6]),
            ("1,024 tokens", [1024.0]),
            ("2^20", [1048576.0]),
            ("80%", [0.8]),
            ("−0.5", [-0.5]),
            ("1.5e-3", [0.0015]),
        ],
    )
    def test_read_numbers(self, text: str, wanted: list[float]) -> None:
        assert read_numbers(text) == pytest.approx(wanted)

    def test_a_known_slip_is_named(self) -> None:
        checks = [
            NumberCheck.model_validate(
                {
                    "name": "attention weights",
                    "values": [0.67, 0.33],
                    "slips": [{"values": [0.73, 0.27], "says": "you forgot the scaling"}],
                }
            )
        ]
        report = check_numbers(checks, "softmax([1, 0]) = [0.73, 0.27]")
        assert report.share == 0 and report.slips == ["you forgot the scaling"]
        assert check_numbers(checks, "weights 0.67, 0.33").share == 1


def test_same_compares_lists_tuples_sets_dicts_and_floats() -> None:
    assert same(["L", [1, ["F", 0.1 + 0.2]]], ["L", [1, ["F", 0.3]]])
    assert same(["S", [1, 2]], ["S", [2, 1]])
    assert not same(["L", [1, 2]], ["S", [1, 2]])
    assert not same(True, 1)


@needs_sandbox
def test_a_correct_code_only_answer_is_graded_by_its_run() -> None:
    """Issue 34: the three comprehensions, code only, exactly right, scored 0.35 CONCEPTUAL;
    graded by running them they score as right."""
    request = GradingRequest(
        question="Write three one-line expressions: a list of the squares of the even numbers "
        "in `nums`; a dict mapping each word in `words` longer than three letters to its "
        "length; and a set of the first letters of the non-empty words.",
        reference_answer="`[n * n for n in nums if n % 2 == 0]` builds the list.",
        answer=RIGHT,
        rubric=["filter as a trailing if", "dict comprehension", "set comprehension"],
        checks=COMPREHENSIONS,
        misconceptions=[
            KnownMisconception(id="x", description="Believes sort returns", cues=["n % 2"])
        ],
    )
    verdict = OfflineGrader().grade(request)
    checked = apply_checks(request, verdict, run_checks(COMPREHENSIONS, request.answer))
    assert checked.score == 1.0 and checked.error_type is None
    assert checked.misconceptions == []  # a cue in the code is not read: the code ran
    assert checked.checks is not None and checked.checks.passed == 3
