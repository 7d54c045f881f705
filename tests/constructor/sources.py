"""A three-chapter course in three formats (Markdown, PDF, DOCX), written for the constructor
tests: headings, definitions, code, and a later chapter that builds on an earlier one."""

from __future__ import annotations

import io
from pathlib import Path

import docx
from fpdf import FPDF

FUNCTIONS_MD = """# Functions

A program grows easier to read when repeated work has a name.

## Defining functions

A function is a named block of code that runs when it is called. You define one with the
`def` keyword, a name, parentheses holding its parameters, and a colon. The indented body
runs each time the function is called, so the same steps are written once and used many times.

```python
def fahr_to_celsius(temp):
    return (temp - 32) * 5 / 9
```

This function converts a temperature from Fahrenheit to Celsius because the body applies the
conversion formula to its parameter and returns the result.

## Return values

A return value is the result a function hands back to its caller. The `return` statement ends
the function and sends the value back, so the caller can store it in a variable or pass it on.
A function without a return statement returns `None`, which is a common source of confusion
when its result is printed.

## Parameters and arguments

A parameter is a variable named in the function definition, whereas an argument is the value
passed in when the function is called. Default values let a caller leave out an argument, which
makes functions easier to use for the common case.
"""

LOOPS_PDF_TEXT = [
    ("title", "Loops"),
    ("body", "Computers are good at repeating the same steps many times without getting tired."),
    ("heading", "For loops"),
    (
        "body",
        "A for loop is a statement that repeats its body once for each item in a collection. "
        "The loop variable takes the value of each item in turn, so the body can use it. "
        "Loops are useful when the same function must be applied to every value in a list.",
    ),
    ("code", "for temp in [32, 50, 212]:"),
    ("code", "    print(fahr_to_celsius(temp))"),
    (
        "body",
        "This loop calls the conversion function on every temperature in the list because the "
        "loop variable temp takes each value in turn.",
    ),
    ("heading", "Accumulating results"),
    (
        "body",
        "An accumulator is a variable that collects a result across the iterations of a loop. "
        "You start it at zero before the loop and add to it inside the body, which lets the loop "
        "compute a total or a count. Forgetting to reset the accumulator is a common mistake.",
    ),
]

ERRORS_DOCX = [
    ("Title", "Errors and Exceptions"),
    ("Normal", "Every programmer makes mistakes, and Python reports them as errors."),
    ("Heading 1", "Reading tracebacks"),
    (
        "Normal",
        "A traceback is the report Python prints when an exception is not handled. It lists the "
        "function calls that were active, from the outermost to the one where the error "
        "happened, so you can find the line that failed.",
    ),
    ("Heading 1", "Handling exceptions"),
    (
        "Normal",
        "An exception is an object that signals an error while a program runs. A try block lets "
        "a program catch an exception and recover, which prevents a crash when a file is "
        "missing. Recall that a function returns a value; when it raises an exception instead, "
        "the caller receives no return value.",
    ),
]


def pdf_bytes() -> bytes:
    pdf = FPDF()
    pdf.add_page()
    for kind, text in LOOPS_PDF_TEXT:
        if kind == "title":
            pdf.set_font("Helvetica", "B", 24)
            pdf.multi_cell(0, 12, text)
        elif kind == "heading":
            pdf.set_font("Helvetica", "B", 16)
            pdf.multi_cell(0, 9, text)
        elif kind == "code":
            pdf.set_font("Courier", "", 10)
            pdf.multi_cell(0, 5, text)
        else:
            pdf.set_font("Helvetica", "", 11)
            pdf.multi_cell(0, 6, text)
        pdf.ln(2)
    return bytes(pdf.output())


def docx_bytes() -> bytes:
    document = docx.Document()
    for style, text in ERRORS_DOCX:
        document.add_paragraph(text, style=style)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def write_sources(folder: Path) -> list[Path]:
    """The three chapters as files, in course order."""
    folder.mkdir(parents=True, exist_ok=True)
    files = [
        (folder / "01-functions.md", FUNCTIONS_MD.encode()),
        (folder / "02-loops.pdf", pdf_bytes()),
        (folder / "03-errors.docx", docx_bytes()),
    ]
    for path, data in files:
        path.write_bytes(data)
    return [path for path, _ in files]
