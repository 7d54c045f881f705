"""The assessment's pool learners answer only from answers the grader was not tuned on: while no
new set exists, the sealed topics of the old one, and only those topics are scored."""

from __future__ import annotations

from pathlib import Path

from tutorgraph.knowledge import get_domain
from tutorgraph_bench.assessment import CONFIGS, as_pool, pool_markdown, run_pool_benchmark
from tutorgraph_bench.learner_answers import untuned_answers
from tutorgraph_bench.splits import load_split

SPLITS = Path(__file__).resolve().parents[2] / "benchmarks" / "splits.yaml"


async def test_pool_learners_never_answer_from_a_development_topic() -> None:
    split = load_split(SPLITS)
    untuned = untuned_answers(split)
    if any(s.present and not s.tuned for s in split.sets):  # the new set has arrived
        assert {a.answer_set for a in untuned.answers} <= {
            s.name for s in split.sets if not s.tuned
        }
        return
    assert untuned.answers and {a.topic for a in untuned.answers} <= split.topics("sealed")
    (run,) = await run_pool_benchmark(learners=1, seeds=[3], pool=as_pool(untuned.answers))
    assert run.total.learners == len(CONFIGS)  # one learner per domain and level
    sealed_on_agendas = sum(
        len(set(get_domain(domain).agenda(level)) & split.topics("sealed"))
        for domain, level in CONFIGS
    )
    assert run.total.topics == sealed_on_agendas  # the sealed topics, and only they, scored
    assert run.unpooled_share > 0  # development topics were asked, answered, not scored
    text = pool_markdown([run], "tutorgraph bench assessment", source=untuned.description)
    assert "sealed-topic answers" in text and "no development-topic answer is used" in text
