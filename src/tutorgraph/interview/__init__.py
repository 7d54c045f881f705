"""The mock technical interviewer (spec: interview-orchestrator): a resume-driven LangGraph
workflow with first-class intents, layered question dedup, sandbox signals and a scorecard."""
