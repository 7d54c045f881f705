from __future__ import annotations

from tutorgraph.content.chunking import chunk_markdown, split_sections

DOC = """# Attention

Intro paragraph.

## Scaled dot-product

Why we scale.

```python
# not a heading
x = 1
```

### Masking

Causal masks hide the future.

## Multi-head

Heads in parallel.
"""


def test_sections_follow_headings_but_not_comments_in_code() -> None:
    paths = [s.heading_path for s in split_sections(DOC)]
    assert paths == [
        ("Attention",),
        ("Attention", "Scaled dot-product"),
        ("Attention", "Scaled dot-product", "Masking"),
        ("Attention", "Multi-head"),
    ]
    code_section = split_sections(DOC)[1]
    assert any("# not a heading" in block for block in code_section.blocks)


def test_long_sections_split_with_overlap_and_never_cross_headings() -> None:
    paragraph = " ".join(f"w{i}" for i in range(100))
    doc = "## Long\n\n" + "\n\n".join([paragraph] * 5) + "\n\n## Next\n\nshort"
    chunks = chunk_markdown(doc, target_words=220, overlap_words=30)
    long_chunks = [c for c in chunks if c.heading == "Long"]
    assert len(long_chunks) == 4  # [p1 p2], [tail p3], [tail p4], [tail p5]
    assert long_chunks[1].text.startswith("… " + " ".join(f"w{i}" for i in range(70, 100)))
    assert chunks[-1].heading_path == ("Next",) and chunks[-1].text == "short"
