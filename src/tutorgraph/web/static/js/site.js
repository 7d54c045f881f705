/* Every page: the menu button that folds the main navigation on a narrow screen, and the code
   editor for any <textarea data-code-editor="python|sql|javascript"> (loaded only where one is).
   Without this script the navigation stays a visible list and code boxes stay plain textareas. */
(function () {
  "use strict";
  var button = document.querySelector(".site-header .menu-button");
  var header = document.querySelector(".site-header");
  var links = button && document.getElementById(button.getAttribute("aria-controls"));
  if (button && header && links) {
    function setOpen(open, focusButton) {
      button.setAttribute("aria-expanded", open ? "true" : "false");
      header.classList.toggle("menu-open", open);
      if (!open && focusButton) button.focus();
    }
    header.classList.add("has-menu");  // the CSS folds the links only once the button works
    button.hidden = false;
    button.addEventListener("click", function () {
      setOpen(button.getAttribute("aria-expanded") !== "true", false);
    });
    header.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && button.getAttribute("aria-expanded") === "true") {
        setOpen(false, true);
      }
    });
    document.addEventListener("click", function (e) {
      if (button.getAttribute("aria-expanded") === "true" && !header.contains(e.target)) setOpen(false, false);
    });
  }

  // A wide table (a lesson's Markdown table, say) scrolls inside its own box, not the page.
  var main = document.getElementById("main");
  if (main) {
    main.querySelectorAll("table").forEach(function (table) {
      var parent = table.parentElement;
      if (!parent || parent.classList.contains("table-scroll")) return;
      var box = document.createElement("div");
      box.className = "table-scroll";
      parent.insertBefore(box, table);
      box.appendChild(table);
    });
  }

  if (document.querySelector("textarea[data-code-editor]")) {
    var script = document.createElement("script");
    script.src = "/static/vendor/codemirror/code-editor.min.js";
    document.head.appendChild(script);
  }
})();
