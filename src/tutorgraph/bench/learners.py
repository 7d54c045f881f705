"""Simulated learners for the assessment benchmark: a known true mastery per topic, answers built
from the knowledge base's reference answers.

Every learner has an ability drawn uniformly from [0.1, 0.95]; their true mastery of each agenda
topic is that ability plus Gaussian noise (sd 0.15), clipped to [0, 1]. A topic is mastered when
its mastery reaches the target level's target confidence, and a true gap otherwise. Two ways of
answering:

- `consistent` (the issue's learner): on a mastered topic, the reference answer, verbatim; on any
  other topic a degraded answer — a random subset of the reference's sentences, in order, holding
  a share of them drawn from N(mastery, 0.1) ("I'm not sure." when that is none) — and, when
  that share is below 0.5, half the time a misconception-driven one (the answer then also states
  one of the topic's known misconceptions, by its first cue phrase).
- `noisy`: every question is known with probability equal to the topic's mastery; a known
  question gets the reference answer, an unknown one a misconception (half the time, when the
  topic has any) or a fragment: the first half of one random sentence of the reference.

The learner only ever sees the question id; nothing here looks at how the assessment decides."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Literal

from tutorgraph.knowledge import KnowledgeBase, TargetLevel

LearnerStyle = Literal["consistent", "noisy"]
LEARNER_STYLES: tuple[LearnerStyle, ...] = ("consistent", "noisy")

ABILITY_RANGE = (0.1, 0.95)
TOPIC_SD = 0.15
ANSWER_SD = 0.1
MISCONCEPTION_BELOW = 0.5
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")
_KEY_POINT_ID = re.compile(r"-kp(\d+)-")


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


@dataclass
class SimulatedLearner:
    kb: KnowledgeBase
    target_level: TargetLevel
    mastery: dict[str, float]
    rng: random.Random
    style: LearnerStyle = "consistent"

    @classmethod
    def generate(
        cls,
        kb: KnowledgeBase,
        target_level: TargetLevel,
        rng: random.Random,
        *,
        style: LearnerStyle = "consistent",
    ) -> SimulatedLearner:
        ability = rng.uniform(*ABILITY_RANGE)
        mastery = {
            topic: round(_clip(rng.gauss(ability, TOPIC_SD)), 3)
            for topic in kb.agenda(target_level)
        }
        return cls(kb, target_level, mastery, rng, style)

    def true_gaps(self) -> set[str]:
        target = self.kb.target_graph(self.target_level)
        return {topic for topic, value in self.mastery.items() if value < target[topic]}

    def answer(self, question_id: str, topic_id: str) -> str:
        reference, misconceptions = self._reference(question_id, topic_id)
        mastery = self.mastery.get(topic_id, 0.0)
        if self.style == "noisy":
            if self.rng.random() < mastery:
                return reference
            wrong = self._misconception(topic_id, misconceptions, chance=0.5)
            if wrong:
                return wrong.strip()
            words = self.rng.choice(self._sentences(reference)).split()
            return " ".join(words[: max(3, len(words) // 2)])
        if topic_id not in self.true_gaps():
            return reference
        share = _clip(self.rng.gauss(mastery, ANSWER_SD))
        sentences = self._sentences(reference)
        keep = round(share * len(sentences))
        chosen = sorted(self.rng.sample(range(len(sentences)), keep)) if keep else []
        text = " ".join(sentences[i] for i in chosen) or "I'm not sure."
        if share < MISCONCEPTION_BELOW:
            text += self._misconception(topic_id, misconceptions, chance=0.5)
        return text

    def _sentences(self, text: str) -> list[str]:
        return [s for s in _SENTENCE.split(text) if s.strip()] or [text]

    def _misconception(self, topic_id: str, ids: list[str], *, chance: float) -> str:
        topic = self.kb.topic(topic_id)
        if not topic.misconceptions or self.rng.random() >= chance:
            return ""
        known = [m for m in topic.misconceptions if m.id in ids]
        misconception = self.rng.choice(known or list(topic.misconceptions))
        return f" As far as I know, {misconception.cues[0]}."

    def _reference(self, question_id: str, topic_id: str) -> tuple[str, list[str]]:
        found = self.kb.question(question_id)
        if found is not None:
            return found[1].reference_answer, list(found[1].misconceptions)
        match = _KEY_POINT_ID.search(question_id)
        points = self.kb.topic(topic_id).key_points
        index = int(match.group(1)) - 1 if match else 0
        return points[min(index, len(points) - 1)], []
