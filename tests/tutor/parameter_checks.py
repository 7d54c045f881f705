"""What the parameter tests of the tutor and the constructor read in an engine's code: the numbers
a module still writes, and the parameters it reads."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import yaml

# Keywords whose numbers define a schema or a cache, not a rule: pydantic bounds, lru_cache.
_STRUCTURAL_KEYWORDS = frozenset({"maxsize", "ge", "le", "min_length", "max_length"})


def numbers_written(path: Path) -> set[tuple[str, float]]:
    """(the function it is in, or "<module>"; value) of every number `path` writes, except 0, 1,
    the digits of a rounding and a schema's or a cache's bounds."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    exempt = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if getattr(node.func, "id", None) == "round" and len(node.args) == 2:
                exempt.add(id(node.args[1]))
            exempt |= {id(k.value) for k in node.keywords if k.arg in _STRUCTURAL_KEYWORDS}
    found: set[tuple[str, float]] = set()

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inside = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inside = child.name
            value = child.value if isinstance(child, ast.Constant) else None
            if (
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and value not in (0, 1)
                and id(child) not in exempt
            ):
                found.add((where, value))
            visit(child, inside)

    visit(tree, "<module>")
    return found


def attributes_read(paths: Iterable[Path]) -> set[str]:
    """Every attribute name the files read (`q.quiz_fit` reads "quiz_fit")."""
    return {
        node.attr
        for path in paths
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute)
    }


def shipped_raw(path: Path) -> dict[str, dict[str, dict[str, object]]]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def write_raw(folder: Path, raw: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "parameters.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return path
