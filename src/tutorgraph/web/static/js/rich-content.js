// Renders math (KaTeX) and diagrams (Mermaid) inside server-rendered markdown. No network.
(function () {
  "use strict";
  function renderMath(root) {
    if (!window.katex) return;
    root.querySelectorAll(".math:not([data-rendered])").forEach(function (el) {
      var display = el.tagName === "DIV" || el.classList.contains("block");
      try {
        window.katex.render(el.textContent, el, { displayMode: display, throwOnError: false });
        el.setAttribute("data-rendered", "katex");
      } catch (e) { el.setAttribute("data-rendered", "error"); }
    });
  }
  function mermaidTheme() {
    var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    return dark ? "dark" : "default";
  }
  async function renderDiagrams(root) {
    if (!window.mermaid) return;
    window.mermaid.initialize({ startOnLoad: false, theme: mermaidTheme(), securityLevel: "strict" });
    var nodes = Array.prototype.slice.call(root.querySelectorAll("pre.mermaid:not([data-processed])"));
    if (nodes.length) {
      try { await window.mermaid.run({ nodes: nodes, suppressErrors: true }); } catch (e) { /* shown inline */ }
    }
  }
  window.tutorgraphRender = function (root) {
    root = root || document;
    renderMath(root);
    return renderDiagrams(root);
  };
  document.addEventListener("DOMContentLoaded", function () { window.tutorgraphRender(document); });
})();
