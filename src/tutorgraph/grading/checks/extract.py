"""The code in a free answer, and the prose around it.

A learner writes code in three ways, all read here, in the answer's order:
- fenced blocks (```` ```python ... ``` ````): taken whole, even when they do not parse (the
  syntax error is then the learner's, reported as such);
- bare code lines: runs of lines that read as code (a statement keyword, an assignment, a call,
  a comment or an indented continuation) and parse together; a run that opens like code but
  does not parse is kept, so its syntax error is reported too;
- code inside prose, read only when the answer has no block of code (beside a block, an inline
  `names = names.sort()` quotes the bug the block fixes), and never a line of the question's
  own code (a quote of the bug being explained): `inline` spans, and bracketed
  expressions written without backticks ("the list is [n*n for n in nums if n % 2 == 0]"),
  kept when they parse as Python and hold more than a bare name.

An expression statement made of displays or comprehensions joined by `/`, `|` or commas
("[...] / {...} / {...}", a learner's list of three answers on one line) is split into one
statement per expression. Comments stay in the code and are also kept as prose, since a terse
learner explains there.

Documents (`toml`, `json`) and SQL: a fenced block, else the answer's lines that read as the
document (TOML tables and `key = value` lines, the outermost JSON object, a statement from
SELECT / WITH / INSERT / UPDATE / DELETE / CREATE to its semicolon)."""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass

_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
_INLINE = re.compile(r"`([^`\n]+)`")
_KEYWORD_LINE = re.compile(
    r"^\s*(def|class|return|import|from\s+\S+\s+import|for|while|if|elif|else\s*:|try\s*:|"
    r"except|finally\s*:|with|yield|raise|assert|pass\b|break\b|continue\b|@\w|async\s+def|"
    r"await|global|nonlocal|lambda|match\s+\S.*:|case\s+\S.*:|print\s*\()"
)
_ASSIGNMENT = re.compile(r"^\s*[\w.\[\]'\"(), ]+?\s*(=|\+=|-=|\*=|/=|//=|%=|\|=|&=)\s*\S")
_CALL_OR_DISPLAY = re.compile(r"^\s*([\w.]+\s*\(|[\[{(])")
_PROSE_WORD = re.compile(r"\b(the|is|are|it|this|that|because|so|which|you|we|then|and|of)\b")
_OPENERS = {"[": "]", "{": "}", "(": ")"}


@dataclass(frozen=True)
class Extracted:
    code: str  # the statements found, in order, one block per source
    prose: str  # the answer without its code, plus the code's comments
    fenced: bool  # some code came from a fenced block
    in_sentences: bool = False  # all of it came from inline spans or expressions in sentences


def extract(answer: str, language: str = "python", *, question: str = "") -> Extracted:
    """The answer's code (or document, or query) and its prose; see the module doc. Code in the
    answer's sentences that is a line of the `question` quotes it (the bug being explained)."""
    if language == "python":
        return _python(answer, _code_lines_of(question))
    return _document(answer, language)


def _code_lines_of(question: str) -> frozenset[str]:
    """The question's code, line by line, whitespace folded: what an answer may quote."""
    lines = [m.group(1) for m in _INLINE.finditer(question)]
    lines += question.splitlines()
    return frozenset(" ".join(line.split()) for line in lines if line.strip())


def _python(answer: str, quoted: frozenset[str] = frozenset()) -> Extracted:
    blocks: list[str] = []
    prose_parts: list[str] = []
    fenced = False
    position = 0
    for match in _FENCE.finditer(answer):
        prose_parts.append(answer[position : match.start()])
        blocks.append(match.group(2).strip("\n"))
        fenced = True
        position = match.end()
    prose_parts.append(answer[position:])
    if fenced:
        prose = "\n".join(prose_parts)
    else:
        blocks, prose = _code_lines(answer)
    in_sentences = False
    if not blocks:
        # Only an answer with no block of code is read for code inside its sentences: beside a
        # block, `names = names.sort()` in a sentence quotes the bug, it is not the fix.
        blocks, prose = _inline_code(prose)
        blocks = _in_order(answer, [b for b in blocks if " ".join(b.split()) not in quoted])
        in_sentences = bool(blocks)
    code = "\n".join(_split_lists(b) for b in blocks if b.strip())
    comments = [c.strip() for b in blocks for c in re.findall(r"#(.*)$", b, re.MULTILINE)]
    prose = "\n".join(part for part in (prose.strip(), *comments) if part)
    return Extracted(code=code, prose=prose, fenced=fenced, in_sentences=in_sentences)


def _in_order(answer: str, blocks: list[str]) -> list[str]:
    return sorted(blocks, key=lambda b: answer.find(b.strip().splitlines()[0]) % 10**9)


def parses(code: str) -> bool:
    """Whether `code` is valid Python (compiled here, never run)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
    return True


def _looks_like_code(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if stripped.startswith("#"):
        return True
    if re.match(r"\s*@[A-Za-z_][\w.]*(\(.*\))?\s*$", line):  # a decorator
        return True
    if _KEYWORD_LINE.match(line):
        # "For example the list..." is prose: a keyword line must also parse alone or open a
        # block (end with a colon) or hold code punctuation.
        return stripped.endswith(":") or parses(stripped) or bool(re.search(r"[()=\[\]]", line))
    if _ASSIGNMENT.match(line) and not _PROSE_WORD.search(line.split("=")[0]):
        return True
    if _CALL_OR_DISPLAY.match(line) and parses(stripped):
        return len(_PROSE_WORD.findall(stripped)) <= 2 or bool(re.search(r"\bfor\b.*\bin\b", line))
    return False


def _code_lines(answer: str) -> tuple[list[str], str]:
    """Runs of code-like lines (with their indented continuations and blank lines inside), each
    dedented; the rest is prose."""
    lines = answer.splitlines()
    blocks: list[str] = []
    prose: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not _looks_like_code(line):
            prose.append(line)
            i += 1
            continue
        run = [line]
        j = i + 1
        while j < len(lines):
            nxt = lines[j]
            indented = nxt[:1] in (" ", "\t") and nxt.strip() != ""
            if (
                (nxt.strip() and _open_brackets("\n".join(run)) > 0)  # a signature's "):"
                or _looks_like_code(nxt)
                or (indented and run)
                or (not nxt.strip() and j + 1 < len(lines) and lines[j + 1][:1] in (" ", "\t"))
            ):
                run.append(nxt)
                j += 1
                continue
            break
        block = _dedent(run)
        if parses(block) or _opens_like_code(block):
            blocks.append(block)
        else:
            kept = [ln for ln in run if parses(ln.strip())]
            blocks += [ln.strip() for ln in kept]
            prose += [ln for ln in run if not parses(ln.strip())]
        i = j
    return blocks, "\n".join(prose)


def _open_brackets(code: str) -> int:
    """Brackets opened and not closed in `code`, outside strings and comments (roughly)."""
    depth = 0
    for line in code.splitlines():
        line = re.sub(r"(\"[^\"]*\"|'[^']*')", "", line).split("#", 1)[0]
        depth += sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")
    return depth


def _opens_like_code(block: str) -> bool:
    """A run that is code by its first line (def, class, for ... :) even if it does not parse."""
    first = block.lstrip().splitlines()[0] if block.strip() else ""
    return bool(
        re.match(r"((async\s+)?def|class)\s+\w+", first)
        or re.match(r"(for|while|if|with|try)\b.*:\s*(#.*)?$", first)
    )


def _dedent(lines: list[str]) -> str:
    indents = [len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()]
    cut = min(indents) if indents else 0
    return "\n".join(ln[cut:] for ln in lines).strip("\n")


def _inline_code(prose: str) -> tuple[list[str], str]:
    """`inline` spans and bare bracketed expressions in prose that parse as Python and are more
    than a name; returns them and the prose without them."""
    found: list[str] = []

    def keep(match: re.Match[str]) -> str:
        span = match.group(1).strip()
        if _is_code_span(span):
            found.append(span)
            return ""
        return span

    prose = _INLINE.sub(keep, prose)
    for span in _bare_expressions(prose):
        if span not in found:
            found.append(span)
            prose = prose.replace(span, "", 1)
    return found, prose


def _is_code_span(span: str) -> bool:
    if not parses(span):
        return False
    tree = ast.parse(span)
    if len(tree.body) != 1:
        return True
    node = tree.body[0]
    if isinstance(node, ast.Expr):
        value = node.value
        # A bare name, attribute or constant ("nums", "list.sort", "0") says nothing runnable;
        # a call with no arguments ("sorted()") names a function, it does not use it.
        if isinstance(value, (ast.Name, ast.Attribute, ast.Constant)):
            return False
        if isinstance(value, ast.Call) and not value.args and not value.keywords:
            return False
    return True


def _bare_expressions(prose: str) -> list[str]:
    """Bracketed expressions written in prose without backticks: a comprehension or a display
    with an operator inside, or a call with arguments, optionally preceded by a name chain."""
    spans = []
    i = 0
    while i < len(prose):
        char = prose[i]
        if char in _OPENERS:
            end = _closing(prose, i)
            if end is None:
                i += 1
                continue
            start = i
            while start > 0 and (prose[start - 1].isalnum() or prose[start - 1] in "._"):
                start -= 1
            assigned = re.search(r"([A-Za-z_][\w.]*)\s*=\s*$", prose[max(0, start - 60) : start])
            if assigned:  # "names = sorted(names, key=str.lower)" written in a sentence
                start -= len(assigned.group(0))
            span = prose[start : end + 1]
            inner = prose[i + 1 : end]
            runnable = bool(
                re.search(r"\bfor\b.+\bin\b", inner)
                or (start < i and inner.strip() and not _PROSE_WORD.search(inner))
                or assigned
            )
            if runnable and _is_code_span(span):
                spans.append(span)
                i = end + 1
                continue
        i += 1
    return spans


def _closing(text: str, start: int) -> int | None:
    stack = [_OPENERS[text[start]]]
    quote = ""
    for k in range(start + 1, min(len(text), start + 2000)):
        c = text[k]
        if quote:
            if c == quote:
                quote = ""
            continue
        if c in "'\"":
            quote = c
        elif c in _OPENERS:
            stack.append(_OPENERS[c])
        elif c in ")]}":
            if c != stack.pop():
                return None
            if not stack:
                return k
        elif c == "\n" and len(stack) == 1 and text[start] == "(":
            return None
    return None


def _split_lists(block: str) -> str:
    """One statement per expression for a line of displays or comprehensions joined by `/`,
    `|` or commas (a learner's list of answers), so each is a value of its own."""
    if not parses(block):
        return block
    tree = ast.parse(block)
    split = {id(node): _list_parts(node.value) for node in tree.body if isinstance(node, ast.Expr)}
    if not any(split.values()):
        return block
    lines = block.splitlines()
    out: list[str] = []
    for node in tree.body:
        parts = split.get(id(node))
        if parts:
            out += [ast.unparse(p) for p in parts]
            continue
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        out.append("\n".join(lines[first - 1 : node.end_lineno]))
    return "\n".join(out)


_DISPLAYS = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp)


def _list_parts(value: ast.expr) -> list[ast.expr] | None:
    if isinstance(value, ast.Tuple) and all(isinstance(e, _DISPLAYS) for e in value.elts):
        return list(value.elts) if len(value.elts) > 1 else None
    if isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Div, ast.BitOr)):
        left = _list_parts(value.left) or (
            [value.left] if isinstance(value.left, _DISPLAYS) else None
        )
        if left is not None and isinstance(value.right, _DISPLAYS):
            return [*left, value.right]
    return None


_DOCUMENT_LINE = {
    "toml": re.compile(r"^\s*(\[.*\]|[\w.\"'-]+\s*=.*|[\]}].*|\".*\",?|'.*',?|#.*)\s*$"),
}
_SQL = re.compile(r"\b(SELECT|WITH|INSERT|UPDATE|DELETE|CREATE)\b.*?(;|\Z)", re.DOTALL | re.I)


def _document(answer: str, language: str) -> Extracted:
    fences = list(_FENCE.finditer(answer))
    if fences:
        code = "\n".join(m.group(2).strip("\n") for m in fences)
        prose = _FENCE.sub("", answer)
        return Extracted(code=code, prose=prose.strip(), fenced=True)
    if language == "json":
        start = answer.find("{")
        end = _closing(answer, start) if start >= 0 else None
        if end is not None:
            code = answer[start : end + 1]
            return Extracted(code, (answer[:start] + answer[end + 1 :]).strip(), fenced=False)
        return Extracted("", answer, fenced=False)
    if language == "sql":
        match = _SQL.search(answer)
        if match is None:
            return Extracted("", answer, fenced=False)
        code = match.group(0)
        return Extracted(code, (answer[: match.start()] + answer[match.end() :]).strip(), False)
    pattern = _DOCUMENT_LINE[language]
    code_lines, prose_lines = [], []
    depth = 0  # open brackets: an array running over several lines
    for line in answer.splitlines():
        if depth > 0 or pattern.match(line):
            code_lines.append(line)
            depth = max(0, depth + line.count("[") - line.count("]"))
        else:
            prose_lines.append(line)
    return Extracted("\n".join(code_lines).strip(), "\n".join(prose_lines).strip(), False)
