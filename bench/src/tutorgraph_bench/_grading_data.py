"""Human-graded short answers from the shared benchmark CSVs, read in place with the stdlib."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tutorgraph.errors import InputError
from tutorgraph.grading.types import GradingRequest
from tutorgraph.text.stopwords import ANSWER_STOPWORDS
from tutorgraph.text.tokens import words

Dataset = Literal["semeval", "saf"]
REFERENCE_SEPARATOR = " ||| "
SAF_LABELS = ("Incorrect", "Partially correct", "Correct")
SEMEVAL_COLUMNS = {
    "corpus",
    "split",
    "question_id",
    "question",
    "reference_answer_best",
    "reference_answers_all",
    "student_answer",
    "label_2way",
}
SAF_COLUMNS = {
    "language",
    "split",
    "question_file",
    "question",
    "reference_answer",
    "student_answer",
    "score",
    "verification_label",
}


@dataclass(frozen=True)
class GradingItem:
    """One human-graded answer: the best reference first, then any alternatives."""

    subset: str
    split: str
    question_id: str
    question: str
    references: tuple[str, ...]
    answer: str
    target: float
    label: str

    def request(self) -> GradingRequest:
        """What a grader sees: the question, the best reference and the answer."""
        return GradingRequest(
            question=self.question, reference_answer=self.references[0], answer=self.answer
        )


def _rows(path: Path, needed: set[str]) -> list[dict[str, str]]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = needed - set(reader.fieldnames or ())
            if missing:
                raise InputError(f"{path}: missing columns {', '.join(sorted(missing))}")
            return list(reader)
    except OSError as exc:
        raise InputError(f"{path}: cannot read the benchmark data ({exc})") from exc


def load_semeval(path: Path) -> list[GradingItem]:
    """SemEval-2013 Task 7, 2-way: every corpus and split of the flattened CSV."""
    items = []
    for row in _rows(path, SEMEVAL_COLUMNS):
        best = row["reference_answer_best"].strip()
        others = [r.strip() for r in row["reference_answers_all"].split(REFERENCE_SEPARATOR)]
        references = (best, *(r for r in others if r and r != best))
        items.append(
            GradingItem(
                subset=row["corpus"],
                split=row["split"],
                question_id=f"{row['corpus']}/{row['question_id']}",
                question=row["question"],
                references=references,
                answer=row["student_answer"],
                target=1.0 if row["label_2way"] == "correct" else 0.0,
                label=row["label_2way"],
            )
        )
    return items


def load_saf(path: Path, *, language: str = "english") -> list[GradingItem]:
    """SAF answers of one language (the English scores are in 0..1)."""
    return [
        GradingItem(
            subset=row["language"],
            split=row["split"],
            question_id=f"{row['question_file']}/{row.get('question_id', '')}",
            question=row["question"],
            references=(row["reference_answer"].strip(),),
            answer=row["student_answer"],
            target=float(row["score"]),
            label=row["verification_label"],
        )
        for row in _rows(path, SAF_COLUMNS)
        if row["language"] == language
    ]


def load_items(dataset: Dataset, path: Path) -> list[GradingItem]:
    """The items of `dataset` from the CSV at `path`."""
    return load_semeval(path) if dataset == "semeval" else load_saf(path)


def lexical_share(item: GradingItem) -> float:
    """Baseline: share of a reference's distinct content words (stopwords dropped, unstemmed)
    present in the answer, best reference."""
    answer = set(words(item.answer))
    shares = []
    for reference in item.references:
        tokens = {w for w in words(reference) if w not in ANSWER_STOPWORDS}
        shares.append(len(tokens & answer) / len(tokens) if tokens else 0.0)
    return max(shares, default=0.0)


def answer_length(item: GradingItem) -> int:
    """Words in the answer (for the length-bias metric)."""
    return len(words(item.answer))
