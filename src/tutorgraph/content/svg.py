"""SVG pictures from uploads, reduced to drawing: `sanitize_svg` parses one and writes back only
the elements and attributes that draw (shapes, text, gradients, filters, local references).
Scripts, event handlers, `foreignObject` (HTML inside the picture), links (what they wrap
stays), animations (which can rewrite a link's target), external references and DTD entities
are dropped, and anything it cannot parse is refused. The image route serves the result under
a sandboxing CSP as well."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape, quoteattr

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_NS = "http://www.w3.org/XML/1998/namespace"

# What draws. Everything else (script, foreignObject, animate, set, iframe, feImage, metadata
# and editors' private elements...) is dropped with its content; a link (<a>) is unwrapped.
ELEMENTS = frozenset(
    {
        "svg", "g", "defs", "title", "desc", "symbol", "use", "switch", "style",
        "path", "rect", "circle", "ellipse", "line", "polyline", "polygon",
        "text", "tspan", "textPath",
        "linearGradient", "radialGradient", "stop", "pattern", "clipPath", "mask", "marker",
        "image",
        "filter", "feBlend", "feColorMatrix", "feComponentTransfer", "feComposite",
        "feConvolveMatrix", "feDiffuseLighting", "feDisplacementMap", "feDistantLight",
        "feDropShadow", "feFlood", "feFuncA", "feFuncB", "feFuncG", "feFuncR",
        "feGaussianBlur", "feMerge", "feMergeNode", "feMorphology", "feOffset",
        "fePointLight", "feSpecularLighting", "feSpotLight", "feTile", "feTurbulence",
    }
)  # fmt: skip
# Embedded pictures an <image> may show: raster data only (an SVG inside could script).
_DATA_IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*\Z", re.I)
# A CSS value may reference this document's own ids (`url(#shadow)`) and nothing else.
_CSS_DANGER = re.compile(r"@import|expression\s*\(|javascript:|behavior\s*:|-moz-binding", re.I)
_CSS_URL = re.compile(r"url\s*\(\s*(['\"]?)(.*?)\1\s*\)", re.I | re.S)


class UnsafeSvg(ValueError):
    """The data is not an SVG this module can read (or it declares DTD entities)."""


def sanitize_svg(data: bytes) -> bytes:
    """The picture with only what draws kept; raises UnsafeSvg when it cannot be read."""
    if b"<!ENTITY" in data:
        raise UnsafeSvg("the SVG declares DTD entities")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise UnsafeSvg(f"the SVG cannot be parsed: {exc}") from None
    if root.tag != f"{{{SVG_NS}}}svg":
        raise UnsafeSvg("the document is not an SVG picture")
    out: list[str] = ['<?xml version="1.0" encoding="UTF-8"?>\n']
    _write(root, out, top=True)
    return "".join(out).encode("utf-8")


def _write(element: ET.Element, out: list[str], *, top: bool = False) -> None:
    name = _svg_name(element.tag)
    if name == "a" and not top:  # the link goes; what it wrapped is still drawn
        _write_content(element, out)
        return
    if name is None or name not in ELEMENTS:
        return
    if name == "style":
        css = element.text or ""
        if _safe_css(css):
            out.append(f"<style>{escape(css)}</style>")
        return
    attributes = "".join(
        f" {key}={quoteattr(value)}"
        for key, value in _kept_attributes(name, element.attrib).items()
    )
    if top:
        attributes = f' xmlns="{SVG_NS}" xmlns:xlink="{XLINK_NS}"' + attributes
    out.append(f"<{name}{attributes}>")
    _write_content(element, out)
    out.append(f"</{name}>")


def _write_content(element: ET.Element, out: list[str]) -> None:
    if element.text:
        out.append(escape(element.text))
    for child in element:
        _write(child, out)
        if child.tail:
            out.append(escape(child.tail))


def _svg_name(tag: object) -> str | None:
    """The local name of an element in the SVG namespace; None for any other (comments and
    processing instructions, HTML, editors' namespaces)."""
    if not isinstance(tag, str) or not tag.startswith(f"{{{SVG_NS}}}"):
        return None
    return tag[len(SVG_NS) + 2 :]


def _kept_attributes(element: str, attributes: dict[str, str]) -> dict[str, str]:
    kept: dict[str, str] = {}
    for key, value in attributes.items():
        if key.startswith("{"):
            namespace, local = key[1:].split("}", 1)
            if namespace == XLINK_NS and local == "href":
                name = "xlink:href"
            elif namespace == XML_NS and local in ("space", "lang"):
                name = f"xml:{local}"
            else:
                continue  # xml:base, editors' attributes...
        else:
            name = key
        lowered = name.lower()
        if lowered.startswith("on") or "javascript:" in value.lower().replace(" ", ""):
            continue  # event handlers
        if lowered in ("href", "xlink:href"):
            if not _safe_reference(element, value):
                continue
        elif not _safe_css(value):
            continue  # style="...", fill="url(...)" and the like
        kept[name] = value
    return kept


def _safe_reference(element: str, value: str) -> bool:
    """A link inside the picture (`#id`), or raster data for an <image>."""
    value = value.strip()
    if value.startswith("#"):
        return True
    return element == "image" and bool(_DATA_IMAGE.match(value))


def _safe_css(text: str) -> bool:
    if _CSS_DANGER.search(text):
        return False
    return all(target.strip().startswith("#") for _, target in _CSS_URL.findall(text))
