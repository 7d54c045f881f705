/* The tutor chat's small, safe markdown: HTML is escaped before any markup is added. Inline
   code, $maths$ (typeset later by rich-content.js), bold, italics, links to safe URLs, and
   "(Source: ...)" citations that `cite(path)` can turn into links to a heading id; blocks:
   fences (```mermaid too), code indented by four spaces or a tab after a blank line (kept line
   for line, as CommonMark does), $$maths$$, headings, lists, quotes and tables (a `|` header row,
   a `|---|` separator, then rows; scrolled sideways inside their own box on a narrow screen). */
window.tutorgraphMarkdown = (function () {
  "use strict";
  function escapeHtml(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }

  function safeUrl(url) {
    return /^(https?:\/\/|\/(?!\/)|#)/i.test(url) ? url : null;
  }

  function inline(text, cite) {
    var codes = [];
    text = text.replace(/`([^`\n]+)`/g, function (_, c) {
      codes.push("<code>" + c + "</code>");
      return "\u0000" + (codes.length - 1) + "\u0000";
    });
    text = text.replace(/\$([^$\n]+?)\$/g, function (_, m) {
      codes.push('<span class="math">' + m + "</span>");
      return "\u0000" + (codes.length - 1) + "\u0000";
    });
    text = text.replace(/\(Source: ([^()\n]+)\)/g, function (all, path) {
      var anchor = cite ? cite(path) : null;
      if (!anchor) return all;
      codes.push('<a class="citation" href="#' + anchor + '" data-anchor="' + anchor + '">' + all + "</a>");
      return "\u0000" + (codes.length - 1) + "\u0000";
    });
    text = text.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
    text = text.replace(/(^|[^*])\*([^*\n]+)\*/g, "$1<em>$2</em>");
    text = text.replace(/(^|[\s(])_([^_\n]+)_(?=[\s.,;:!?)]|$)/g, "$1<em>$2</em>");
    text = text.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, function (all, label, url) {
      var safe = safeUrl(url.replace(/&amp;/g, "&"));
      return safe ? '<a href="' + escapeHtml(safe) + '" target="_blank" rel="noopener noreferrer">' + label + "</a>" : label;
    });
    return text.replace(/\u0000(\d+)\u0000/g, function (_, i) { return codes[Number(i)]; });
  }

  function cells(row) {
    // "| a | `b|c` |": split on the pipes outside inline code
    var parts = [], cell = "", code = false;
    row.trim().replace(/^\|/, "").replace(/\|$/, "").split("").forEach(function (ch) {
      if (ch === "`") code = !code;
      if (ch === "|" && !code) { parts.push(cell.trim()); cell = ""; } else cell += ch;
    });
    parts.push(cell.trim());
    return parts;
  }

  function markdown(src, cite) {
    var text = escapeHtml(src);
    var out = [];
    var lines = text.split("\n");
    var i = 0;
    var para = [];
    var INDENTED = /^( {4}|\t)/;
    function flush() {
      if (para.length) out.push("<p>" + inline(para.join(" "), cite) + "</p>");
      para = [];
    }
    while (i < lines.length) {
      var line = lines[i];
      var fence = line.match(/^```\s*([\w-]*)\s*$/);
      if (fence) {
        flush();
        var body = [];
        i++;
        while (i < lines.length && !/^```\s*$/.test(lines[i])) { body.push(lines[i]); i++; }
        i++;
        if (fence[1] === "mermaid") out.push('<pre class="mermaid">' + body.join("\n") + "</pre>");
        else out.push('<pre><code class="language-' + (fence[1] || "text") + '">' + body.join("\n") + "</code></pre>");
        continue;
      }
      if (/^\$\$/.test(line.trim())) {
        flush();
        var math = [line.trim().replace(/^\$\$/, "")];
        var closed = /\$\$$/.test(math[0]) && math[0].length > 0;
        if (closed) math[0] = math[0].replace(/\$\$$/, "");
        i++;
        while (!closed && i < lines.length) {
          var m = lines[i];
          if (/\$\$\s*$/.test(m)) { math.push(m.replace(/\$\$\s*$/, "")); closed = true; } else math.push(m);
          i++;
        }
        out.push('<div class="math">' + math.join("\n") + "</div>");
        continue;
      }
      // Indented code: it cannot interrupt a paragraph (a wrapped line is not code).
      if (!para.length && INDENTED.test(line) && line.trim()) {
        var code = [];
        while (i < lines.length && (INDENTED.test(lines[i]) || !lines[i].trim())) {
          code.push(lines[i].replace(INDENTED, ""));
          i++;
        }
        while (code.length && !code[code.length - 1].trim()) code.pop();
        out.push('<pre><code class="language-text">' + code.join("\n") + "</code></pre>");
        continue;
      }
      var heading = line.match(/^(#{1,4})\s+(.*)$/);
      if (heading) {
        flush();
        var level = Math.min(heading[1].length + 2, 6);
        out.push("<h" + level + ">" + inline(heading[2], cite) + "</h" + level + ">");
        i++;
        continue;
      }
      if (/^\s*([-*]|\d+[.)])\s+/.test(line)) {
        flush();
        var ordered = /^\s*\d+[.)]\s+/.test(line);
        var items = [];
        while (i < lines.length && /^\s*([-*]|\d+[.)])\s+/.test(lines[i])) {
          items.push("<li>" + inline(lines[i].replace(/^\s*([-*]|\d+[.)])\s+/, ""), cite) + "</li>");
          i++;
        }
        out.push((ordered ? "<ol>" : "<ul>") + items.join("") + (ordered ? "</ol>" : "</ul>"));
        continue;
      }
      if (/^\s*\|/.test(line) && i + 1 < lines.length && /^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1])) {
        flush();
        var head = cells(line);
        var rows = [];
        i += 2;
        while (i < lines.length && /^\s*\|/.test(lines[i])) { rows.push(cells(lines[i])); i++; }
        var html = "<thead><tr>" + head.map(function (c) { return "<th>" + inline(c, cite) + "</th>"; }).join("") + "</tr></thead><tbody>";
        rows.forEach(function (row) {
          html += "<tr>" + row.map(function (c) { return "<td>" + inline(c, cite) + "</td>"; }).join("") + "</tr>";
        });
        out.push('<div class="table-scroll"><table>' + html + "</tbody></table></div>");
        continue;
      }
      if (/^&gt;\s?/.test(line)) {
        flush();
        out.push("<blockquote>" + inline(line.replace(/^&gt;\s?/, ""), cite) + "</blockquote>");
        i++;
        continue;
      }
      if (!line.trim()) flush(); else para.push(line);
      i++;
    }
    flush();
    return out.join("\n");
  }

  return { escapeHtml: escapeHtml, safeUrl: safeUrl, inline: inline, markdown: markdown };
})();
