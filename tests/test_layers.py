"""The layering contract: cli -> server -> api / web -> http -> flows -> domain -> base, one way.

Every `import` in src/tutorgraph (module level or inside a function) is read with `ast`. It fails
here, with the offending file and line, when it points up the layers, goes from web into an API
route module or from the runtime into the CLI code, goes from one flow to another along an edge
`FLOW_EDGES` does not list, or reaches into another top-level package's `_private` module; and
the top-level packages import one another without cycles. The benchmarks and test fakes are a
package of their own (`tutorgraph_bench`, bench/ in the repository): only the CLI's registration
point imports it, and the server's wheel leaves it out."""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "tutorgraph"
BENCH_PACKAGE = "tutorgraph_bench"
# The modules of the server's tree that may import the benchmark package, each lazily and only
# after checking it is installed (`_bench_group.bench_installed`): where the CLI adds
# `tutorgraph bench`, and `tutorgraph calibrate`, whose procedure reads the benchmark data.
BENCH_IMPORTERS = {Path("cli/_bench_group.py"), Path("cli/calibrate.py")}

FLOWS = {"assessment", "tutor", "practice", "learning", "instructor", "lti", "auth", "evals"} | {
    "constructor",
    "interview",
}
# Top-level packages/modules of tutorgraph by layer, highest first.
LAYERS: list[set[str]] = [
    {"__main__", "cli"},  # commands
    {"server"},  # the app factory: mounts the API and the pages
    {"api", "web"},  # the HTTP edges: JSON routes and pages
    {"http", "engines"},  # what the edges share: HTTP plumbing, the engine wiring
    FLOWS,
    {"grading", "knowledge", "content", "learner_model"},  # domain
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
    | {"offload", "wording", "observability", "text", "ids", "parameter_files", "__init__"}
    | {"sandbox"},  # base
]
# The only imports from one flow into another, each with its reason.
FLOW_EDGES: set[tuple[str, str]] = {
    ("assessment", "learning"),  # a finished assessment schedules reviews of its gaps
    ("interview", "learning"),  # so does a finished interview
    ("learning", "practice"),  # the planner starts, reads and re-queues practice rounds
    ("learning", "lti"),  # the planner sends a concept's grade back to the LTI platform
    ("lti", "instructor"),  # an LTI launch enrols the user in the platform's course
    ("evals", "tutor"),  # the evaluations run the tutor's agents and composer
}
# What the server never imports: the command line (the benchmarks are not in this tree at all).
SERVER_NEVER_IMPORTS = {"cli"}


@dataclass(frozen=True)
class Import:
    """One import from a top-level package of the tree into another."""

    where: str  # file:line
    source: str  # the importing module's top-level package
    target: str  # the imported module's top-level package
    module: str  # the dotted name imported


def layer_of(top: str) -> int:
    for rank, members in enumerate(LAYERS):
        if top in members:
            return rank
    raise AssertionError(f"tutorgraph.{top} belongs to no layer: add it to LAYERS")


def _ours(module: str, package: str) -> bool:
    """Whether `module` is `package` or inside it (`tutorgraph_bench` is not in `tutorgraph`)."""
    return module == package or module.startswith(f"{package}.")


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) for every tutorgraph import in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            found += [(node.lineno, n) for n in names if _ours(n, "tutorgraph")]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if _ours(a.name, "tutorgraph")]
    return found


def tree_imports(src: Path = SRC) -> list[Import]:
    """Every import in the tree at `src` (a `tutorgraph` directory) between two of its top-level
    packages; a name defined in tutorgraph/__init__.py counts as the package `__init__`."""
    found = []
    for path in sorted(src.rglob("*.py")):
        if "migrations" in path.parts:
            continue
        source = path.relative_to(src).parts[0].removesuffix(".py")
        for line, module in imports(path):
            parts = module.split(".")
            if len(parts) < 2:
                continue
            target = parts[1]
            if not (src / target).is_dir() and not (src / f"{target}.py").is_file():
                target = "__init__"
            if target != source:
                where = f"{path.relative_to(src.parent)}:{line}"
                found.append(Import(where=where, source=source, target=target, module=module))
    return found


def violations(found: Iterable[Import] | None = None) -> list[str]:
    """Imports up the layers, from web into API routes, or from the server into the CLI."""
    problems = []
    for i in tree_imports() if found is None else found:
        where = f"{i.where} imports {i.module}"
        if layer_of(i.target) < layer_of(i.source):
            problems.append(f"{where} (a lower layer importing a higher one)")
        if i.source == "web" and i.module.startswith("tutorgraph.api.routes"):
            problems.append(f"{where} (web pages call services, not API route modules)")
        if i.source not in {"cli", "__main__"} and i.target in SERVER_NEVER_IMPORTS:
            problems.append(f"{where} (the server never imports {i.target})")
    return problems


def flow_edges(found: Iterable[Import]) -> dict[tuple[str, str], list[str]]:
    """The imports from one flow into another, by (source, target)."""
    edges: dict[tuple[str, str], list[str]] = {}
    for i in found:
        if i.source in FLOWS and i.target in FLOWS:
            edges.setdefault((i.source, i.target), []).append(f"{i.where} imports {i.module}")
    return edges


def unlisted_flow_imports(
    found: Iterable[Import], allowed: set[tuple[str, str]] = FLOW_EDGES
) -> list[str]:
    return [
        f"{where} (flow {source} -> {target} is not in FLOW_EDGES)"
        for (source, target), wheres in flow_edges(found).items()
        if (source, target) not in allowed
        for where in wheres
    ]


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(found: Iterable[Import]) -> list[str]:
    """Imports of another top-level package's `_private` module, package or name."""
    return [
        f"{i.where} imports {i.module} (private to tutorgraph.{i.target})"
        for i in found
        if any(_private(part) for part in i.module.split(".")[1:])
    ]


def import_graph(found: Iterable[Import]) -> dict[str, set[str]]:
    """Top-level package -> the top-level packages it imports."""
    graph: dict[str, set[str]] = {}
    for i in found:
        graph.setdefault(i.source, set()).add(i.target)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The groups of top-level packages that import one another, round and round (the strongly
    connected components of two or more; Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for neighbour in sorted(graph.get(node, ())):
            if neighbour not in index:
                visit(neighbour)
                low[node] = min(low[node], low[neighbour])
            elif neighbour in stack:
                low[node] = min(low[node], index[neighbour])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def cycle_report(found: list[Import]) -> list[str]:
    """Each cycle with the imports that close it."""
    report = []
    for component in cycles(import_graph(found)):
        members = set(component)
        closing = [
            f"{i.where} imports {i.module}"
            for i in found
            if i.source in members and i.target in members
        ]
        report.append(f"{' <-> '.join(component)}: {'; '.join(closing)}")
    return report


def _tree(root: Path, files: Mapping[str, str]) -> Path:
    """A small tutorgraph tree for showing that a rule catches a bad import."""
    src = root / "tutorgraph"
    for name, text in files.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return src


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
    src = _tree(tmp_path, {"grading/x.py": bad.read_text(), "api/routes/practice.py": ""})
    found = violations(tree_imports(src))
    assert len(found) == 2  # the module and the name
    assert all(v.endswith("(a lower layer importing a higher one)") for v in found)


def test_flows_import_one_another_only_along_the_listed_edges() -> None:
    assert unlisted_flow_imports(tree_imports()) == []


def test_every_listed_flow_edge_is_still_used() -> None:
    """A listed edge nobody uses any more is taken off the list, so the list stays the map."""
    assert {edge for edge in FLOW_EDGES if edge[0] not in FLOWS or edge[1] not in FLOWS} == set()
    assert FLOW_EDGES - set(flow_edges(tree_imports())) == set()


def test_the_flow_list_catches_an_unlisted_edge(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "tutor/quiz.py": "from tutorgraph.assessment.service import AssessmentService\n",
            "assessment/service.py": "from tutorgraph.learning import reviews\n",
            "learning/reviews.py": "",
        },
    )
    found = tree_imports(src)
    assert unlisted_flow_imports(found) == [
        "tutorgraph/tutor/quiz.py:1 imports tutorgraph.assessment.service"
        " (flow tutor -> assessment is not in FLOW_EDGES)",
        "tutorgraph/tutor/quiz.py:1 imports tutorgraph.assessment.service.AssessmentService"
        " (flow tutor -> assessment is not in FLOW_EDGES)",
    ]


def test_top_level_packages_import_one_another_without_cycles() -> None:
    assert cycle_report(tree_imports()) == []


def test_the_cycle_rule_catches_a_cycle(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "security.py": "def check():\n    from tutorgraph.store.ids import is_db_id\n",
            "store/ids.py": "",
            "store/users.py": "from tutorgraph.security import hash_password\n",
            "settings.py": "",
            "errors.py": "from tutorgraph import settings\n",
        },
    )
    found = tree_imports(src)
    assert cycles(import_graph(found)) == [["security", "store"]]
    assert cycle_report(found) == [
        "security <-> store: tutorgraph/security.py:2 imports tutorgraph.store.ids; "
        "tutorgraph/security.py:2 imports tutorgraph.store.ids.is_db_id; "
        "tutorgraph/store/users.py:1 imports tutorgraph.security; "
        "tutorgraph/store/users.py:1 imports tutorgraph.security.hash_password"
    ]


def test_no_package_imports_another_packages_private_module() -> None:
    assert private_imports(tree_imports()) == []


def test_the_private_rule_catches_another_packages_private_module(tmp_path: Path) -> None:
    src = _tree(
        tmp_path,
        {
            "tutor/_compose.py": "",
            "tutor/offline_tutor.py": "from tutorgraph.tutor._compose import compose\n",
            "evals/checks.py": (
                "from tutorgraph.tutor import _compose\nimport tutorgraph.tutor._compose\n"
            ),
            "cli/app.py": "from tutorgraph import __version__\n",
        },
    )
    private = "tutorgraph.tutor._compose (private to tutorgraph.tutor)"
    assert private_imports(tree_imports(src)) == [
        f"tutorgraph/evals/checks.py:1 imports {private}",
        f"tutorgraph/evals/checks.py:2 imports {private}",
    ]


def bench_importers() -> set[Path]:
    """Modules of the server's tree that import the benchmark package, in any form."""
    found = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if any(_ours(n, BENCH_PACKAGE) for n in names):
                found.add(path.relative_to(SRC))
    return found


def test_only_the_cli_registration_points_import_the_benchmarks() -> None:
    assert bench_importers() <= BENCH_IMPORTERS
    assert Path("cli/_bench_group.py") in bench_importers()
    assert not (SRC / "bench").exists(), "benchmarks live in bench/src/tutorgraph_bench"


def test_the_server_wheel_leaves_the_benchmarks_out() -> None:
    """The server's distribution packages src/tutorgraph alone and depends on no benchmark
    package; the benchmarks are a distribution of their own."""
    server = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert server["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["src/tutorgraph"]
    requirements = list(server["project"]["dependencies"])
    requirements += [
        r for extra in server["project"]["optional-dependencies"].values() for r in extra
    ]
    assert not [r for r in requirements if r.startswith("tutorgraph")]
    assert not list(SRC.rglob(f"{BENCH_PACKAGE}*"))
    bench = tomllib.loads((ROOT / "bench" / "pyproject.toml").read_text(encoding="utf-8"))
    assert bench["project"]["name"] == "tutorgraph-bench"
    assert bench["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == [
        f"src/{BENCH_PACKAGE}"
    ]
