"""An author's upload to markdown the constructor can chunk: `#` headings, ``` fences, lists.

The kind is sniffed from the bytes, never trusted from the extension. What each format keeps:

- Markdown: everything, as written; setext headings become `#` headings (the chunker only reads
  `#`), YAML front matter leaves the text and its scalar values become `metadata` (title,
  description, order keys... as strings; safe-loaded, nested maps dropped), and `data:` images
  become image entries referenced by name. Linked images stay links: nothing is downloaded.
- Plain text: paragraphs and lists as written; underlined (`===`/`---`) lines and short ALL-CAPS
  lines become headings, indented blocks become code fences. Emphasis cannot be recovered.
- HTML: `<h1>`-`<h6>` as `#` headings, paragraphs, lists, tables, links and `<pre>` code (with
  its `language-x`); the `<title>` and description meta tag as `metadata`;
  scripts, styles, navigation, page headers and footers are dropped; `data:` images become image
  entries. Linked images stay links. CSS layout and forms are lost.
- PDF: text in drawing order, which is reading order for most single-column documents but not
  all. Headings come from the document outline (bookmarks) when it has one: the line of a
  bookmark's page that spells its title becomes a heading at the bookmark's depth. Without
  bookmarks they are guessed from font sizes (a line clearly larger than the document's body
  text), so they are only as good as the typography; bold body-size headings stay paragraphs.
  The document information's title (unless it is a file name or a placeholder), subject and
  author are `metadata`.
  Lines set (almost) wholly in a monospace font become code fences (inline code in prose is not
  marked); wrapped lines are merged, hyphenated breaks joined (a real hyphen at a line end is lost
  too), and • bullets become list items. Bare page numbers, and header/footer lines repeated on
  most pages, are dropped. Tables come out as lines of text. Scanned pages have no text (no OCR):
  each is a warning. Images need Pillow to decode; their caption is the "Figure ..."/"Table ..."
  line right below them. Links, annotations and form fields are dropped.
- DOCX: Title/Heading styles (as `#`, `##`...; the core properties' title, subject and author
  are `metadata`), bullet and numbered lists (nesting from the style's level), bold,
  italic, links, code (monospace or Code-styled paragraphs), tables (as pipe tables, merged cells
  repeated) and pictures with the Caption paragraph below them. Equations and text boxes are
  dropped (with a warning); headers, footers, footnotes, comments, content controls and tracked
  insertions are dropped silently.

Every kept image is an `ExtractedImage` and the markdown refers to it by name,
`![caption](page3-img1.png)`, at the place it appeared (PDF and DOCX) or where the `data:` URI was.

Uploads are hostile until read: sizes, page counts and image counts are capped
(`ExtractionLimits`), DOCX archives are checked for ZIP bombs before they are opened, and
`extract_isolated` reads a file in a separate process it kills after a deadline.
"""

from tutorgraph.content.extract.base import (
    ExtractedDocument,
    ExtractedImage,
    ExtractionError,
    ExtractionLimits,
    Kind,
)
from tutorgraph.content.extract.isolated import extract_isolated
from tutorgraph.content.extract.pipeline import extract
from tutorgraph.content.extract.sniff import sniff_kind

__all__ = [
    "ExtractedDocument",
    "ExtractedImage",
    "ExtractionError",
    "ExtractionLimits",
    "Kind",
    "extract",
    "extract_isolated",
    "sniff_kind",
]
