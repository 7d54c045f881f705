"""Answers in the terminal, shared by `assess` and `interview`: from a YAML/JSON list
(`--answers FILE`), or typed at a prompt (an answer ends with an empty line; Ctrl-D stops)."""

from __future__ import annotations

from collections import deque
from pathlib import Path

import yaml
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel

from tutorgraph.errors import InputError


def read_answers(path: Path) -> deque[str]:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))  # JSON is YAML too
    except OSError as exc:
        raise InputError(f"--answers: cannot read {path}: {exc.strerror}") from exc
    except yaml.YAMLError as exc:
        raise InputError(f"--answers: {path} is not valid YAML or JSON: {exc}") from exc
    if not isinstance(raw, list) or not all(isinstance(a, str | int | float) for a in raw):
        raise InputError(f"--answers: {path} must hold a list of answers (strings)")
    return deque(str(a) for a in raw)


def next_answer(
    out: Console,
    scripted: deque[str] | None,
    *,
    title: str = "Answer",
    exhausted: str = "The answers file has no more answers.",
    on_ctrl_d: str = "to stop and resume later",
) -> str | None:
    """The next scripted answer (shown as typed), or one typed at the prompt; None to stop."""
    if scripted is not None:
        if not scripted:
            out.print(f"[yellow]{exhausted}[/]")
            return None
        answer = scripted.popleft()
        out.print(Panel(escape(answer) or "(empty answer)", title=title, border_style="dim"))
        return answer
    out.print(f"[dim]Your answer (end with an empty line; Ctrl-D {on_ctrl_d}):[/]")
    lines: list[str] = []
    try:
        while True:
            line = out.input("> " if not lines else "  ")
            if not line.strip():
                if lines:
                    break
                continue
            lines.append(line)
    except (EOFError, KeyboardInterrupt):
        out.print()
        return None
    return "\n".join(lines)
