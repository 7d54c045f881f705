"""The layering contract: api / web / cli -> workflows -> domain -> store / llm, one way.

Every `import` in src/tutorgraph (module level or inside a function) is read with `ast`; an import
that points up the layers, from web into an API route module, or from the runtime into the
benchmark or CLI code, fails here with the offending file and line."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "tutorgraph"

# Top-level packages/modules of tutorgraph by layer, highest first.
LAYERS: list[set[str]] = [
    {"__main__", "cli", "bench"},  # commands and benchmarks
    {"api", "web", "engines"},  # the HTTP edges and the engine wiring they share
    {"assessment", "tutor", "practice", "learning", "instructor", "lti", "auth", "evals"}
    | {"constructor", "interview"},  # flows
    {"grading", "knowledge", "content"},  # domain
    {
        "store",
        "llm",
        "security",
        "signing_secret",
        "password_policy",
        "settings",
        "errors",
        "limits",
    }
    | {"offload", "wording", "observability", "__init__"},  # base
]
# What the server never imports: benchmark-only code and the command line.
SERVER_NEVER_IMPORTS = {"bench", "cli"}


def layer_of(top: str) -> int:
    for rank, members in enumerate(LAYERS):
        if top in members:
            return rank
    raise AssertionError(f"tutorgraph.{top} belongs to no layer: add it to LAYERS")


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) for every tutorgraph import in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            found += [(node.lineno, n) for n in names if n.startswith("tutorgraph")]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("tutorgraph")]
    return found


def violations() -> list[str]:
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        source = path.relative_to(SRC).parts[0].removesuffix(".py")
        for line, module in imports(path):
            parts = module.split(".")
            if len(parts) < 2:
                continue
            target = parts[1]
            if not (SRC / target).is_dir() and not (SRC / f"{target}.py").is_file():
                target = "__init__"  # a name defined in tutorgraph/__init__.py
            where = f"{path.relative_to(SRC.parent)}:{line} imports {module}"
            if target == source:
                continue
            if layer_of(target) < layer_of(source):
                problems.append(f"{where} (a lower layer importing a higher one)")
            if source == "web" and module.startswith("tutorgraph.api.routes"):
                problems.append(f"{where} (web pages call services, not API route modules)")
            if source not in {"cli", "bench", "__main__"} and target in SERVER_NEVER_IMPORTS:
                problems.append(f"{where} (the server never imports {target})")
    return problems


def test_imports_follow_the_layers() -> None:
    assert violations() == []


def test_the_contract_catches_an_upward_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from tutorgraph.api.routes.practice import round_out\n", encoding="utf-8")
    assert imports(bad) == [
        (1, "tutorgraph.api.routes.practice"),
        (1, "tutorgraph.api.routes.practice.round_out"),
    ]
    assert layer_of("api") < layer_of("grading")
