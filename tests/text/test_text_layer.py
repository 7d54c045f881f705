"""The text layer is the one place each reading decision is made: one stemmer, one negation
scope, word sets named by purpose; and its public functions read text as documented."""

from __future__ import annotations

import ast
from pathlib import Path

import bm25s
import Stemmer

from tutorgraph.text.markdown import code_blocks, row_sentences, sentences
from tutorgraph.text.negation import NEGATION_SCOPE, negated_stems
from tutorgraph.text.query import expand, stem_set
from tutorgraph.text.stemming import content_stems, idea_stem, near, stem, stem_words
from tutorgraph.text.stopwords import ANSWER_STOPWORDS, IDEA_STOPWORDS, QUESTION_STOPWORDS
from tutorgraph.text.tokens import normalise

SRC = Path(__file__).resolve().parents[2] / "src" / "tutorgraph"


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(SRC.rglob("*.py"))]


def test_one_snowball_stemmer_is_built_in_the_whole_package() -> None:
    built = [
        f"{path.relative_to(SRC)}:{node.lineno}"
        for path, tree in _modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "Stemmer.Stemmer"
    ]
    assert len(built) == 1 and built[0].startswith("text/stemming.py:"), built


def test_reading_constants_are_defined_once_in_the_text_layer() -> None:
    defined: dict[str, list[str]] = {}
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name) and (
                        target.id in {"NEGATION_SCOPE", "NEGATIONS", "OPPOSITES"}
                        or target.id.endswith("STOPWORDS")
                    ):
                        defined.setdefault(target.id, []).append(str(path.relative_to(SRC)))
    assert defined["NEGATION_SCOPE"] == ["text/negation.py"]
    outside = {
        name: where for name, where in defined.items() if any("text/" not in w for w in where)
    }
    assert outside == {}, f"word sets defined outside tutorgraph.text: {outside}"


def test_stem_words_is_snowball_and_leaves_the_search_index_unchanged() -> None:
    words = ["running", "generators", "decorated", "lazily", "attention"]
    assert stem_words(words) == Stemmer.Stemmer("english").stemWords(words)
    texts = ["Generators yield values lazily.", "A decorator wraps a function."]
    ours = bm25s.tokenize(texts, stopwords="en", stemmer=stem_words, show_progress=False)
    theirs = bm25s.tokenize(
        texts, stopwords="en", stemmer=Stemmer.Stemmer("english"), show_progress=False
    )
    assert ours.ids == theirs.ids and ours.vocab == theirs.vocab


def test_the_word_sets_differ_on_purpose() -> None:
    # A grader keeps comparatives and negations; a question search drops "more" and "explain".
    assert "more" not in ANSWER_STOPWORDS and "not" not in ANSWER_STOPWORDS
    assert {"more", "explain", "lesson"} <= QUESTION_STOPWORDS
    # An idea keeps words of order: "read before assignment" is not "read after assignment".
    assert "before" in ANSWER_STOPWORDS and "before" not in IDEA_STOPWORDS


def test_negation_reaches_the_scope_and_no_further() -> None:
    near_word = negated_stems("it does not copy the list")
    assert near_word[stem("copy")] is True
    far = "not " + " ".join(f"w{i}" for i in range(NEGATION_SCOPE)) + " copy"
    assert negated_stems(far)[stem("copy")] is False


def test_tokens_stems_and_nearness() -> None:
    assert normalise("σ(0) − 0.5 → Naïve") == "sigmoid 0 0 5 naive"
    assert content_stems("The lists are not copied") == ["list", "copi"]
    assert idea_stem("lost") == stem("lose")
    assert near("generator", "generater") and not near("list", "lust")


def test_markdown_is_read_as_prose() -> None:
    text = (
        "# Heading\n\nA generator yields values one at a time. It keeps its state.\n\n"
        "```python\ndef gen():\n    yield 1\n```\n\n| name | meaning |\n|---|---|\n"
        "| `next` | the next value |\n"
    )
    assert sentences(text) == ["A generator yields values one at a time.", "It keeps its state."]
    assert [block.language for block in code_blocks(text)] == ["python"]
    assert row_sentences(text) == ["`next`: the next value."]


def test_a_learners_question_is_spelled_out_for_search() -> None:
    assert "equality" in expand("is vs ==")
    assert stem_set(expand("explain lora_alpha please")) == {"lora", "alpha"}
