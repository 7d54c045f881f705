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
- `pool` (the honest one): answers come from an answer pool written independently of the
  knowledge base (`benchmarks/learner_answers*/`: correct, partial and wrong answers in several
  voices, by writers who never saw the references or the grader), holding only answers the
  grader was not tuned on (`learner_answers.untuned_answers`). On a mastered topic a correct
  answer; on a gap topic a partial one when the mastery is within NEAR_TARGET of the target, a
  wrong one otherwise; with probability SLIP the category is one off. A question the pool has
  no answer for (a key-point question the assessment built) gets a same-category answer to
  another question of the topic, and is counted as a fallback. A topic the pool has no answer
  for at all (a development topic, while the pool is the sealed topics) is answered as a
  `consistent` learner would, and left out of the scores (`scored_topics`).

`consistent` and `noisy` answer with the knowledge base's own words, so they measure the
simulator as much as the assessment; they are kept as an upper bound.

The learner only ever sees the question id; nothing here looks at how the assessment decides."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Literal

from tutorgraph.knowledge import KnowledgeBase, TargetLevel

LearnerStyle = Literal["pool", "consistent", "noisy"]
LEARNER_STYLES: tuple[LearnerStyle, ...] = ("pool", "consistent", "noisy")
SLIP = 0.1  # a pool learner's answer falls one category off (a lucky guess, a slip)
NEAR_TARGET = 0.2  # a gap topic this close to its target is answered partially

ABILITY_RANGE = (0.1, 0.95)
TOPIC_SD = 0.15
ANSWER_SD = 0.1
MISCONCEPTION_BELOW = 0.5
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"'])")
_KEY_POINT_ID = re.compile(r"-kp(\d+)-")


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


Pool = dict[str, dict[str, list[str]]]  # question id -> category -> answers


@dataclass
class SimulatedLearner:
    kb: KnowledgeBase
    target_level: TargetLevel
    mastery: dict[str, float]
    rng: random.Random
    style: LearnerStyle = "consistent"
    pool: Pool | None = None
    fallbacks: int = 0
    unpooled: int = 0  # a pool learner's answers on a topic outside the pool

    @classmethod
    def generate(
        cls,
        kb: KnowledgeBase,
        target_level: TargetLevel,
        rng: random.Random,
        *,
        style: LearnerStyle = "consistent",
        pool: Pool | None = None,
    ) -> SimulatedLearner:
        if style == "pool" and not pool:
            raise ValueError("the pool style needs an answer pool")
        ability = rng.uniform(*ABILITY_RANGE)
        mastery = {
            topic: round(_clip(rng.gauss(ability, TOPIC_SD)), 3)
            for topic in kb.agenda(target_level)
        }
        return cls(kb, target_level, mastery, rng, style, pool)

    def true_gaps(self) -> set[str]:
        target = self.kb.target_graph(self.target_level)
        return {topic for topic, value in self.mastery.items() if value < target[topic]}

    def scored_topics(self) -> set[str]:
        """The agenda topics this learner's answers measure: for a pool learner, those the pool
        has answers for; otherwise every one."""
        if self.style != "pool":
            return set(self.mastery)
        return {topic for topic in self.mastery if self._pooled(topic)}

    def _pooled(self, topic_id: str) -> bool:
        assert self.pool is not None
        return any(q.id in self.pool for q in self.kb.topic(topic_id).questions)

    def answer(self, question_id: str, topic_id: str) -> str:
        if self.style == "pool":
            if self._pooled(topic_id):
                return self._from_pool(question_id, topic_id)
            self.unpooled += 1
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

    def _from_pool(self, question_id: str, topic_id: str) -> str:
        assert self.pool is not None
        mastery = self.mastery.get(topic_id, 0.0)
        target = self.kb.target_graph(self.target_level)[topic_id]
        near = mastery >= target - NEAR_TARGET
        category = 0 if mastery >= target else (1 if near else 2)
        if self.rng.random() < SLIP:
            category = 1 if category != 1 else self.rng.choice((0, 2))
        name = ("correct", "partial", "wrong")[category]
        answers = self.pool.get(question_id, {}).get(name)
        if not answers:
            self.fallbacks += 1
            same_topic = [
                text
                for q in self.kb.topic(topic_id).questions
                for text in self.pool.get(q.id, {}).get(name, [])
            ]
            answers = same_topic or ["I don't know."]
        return self.rng.choice(answers)

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
