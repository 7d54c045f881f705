/* A "Print this report" button: the browser's print dialog (print styles in app.css). A
   printed report shows every collapsed section (the evidence), then leaves them as they were. */
(function () {
  "use strict";
  document.querySelectorAll(".print-button").forEach(function (button) {
    button.addEventListener("click", function () { window.print(); });
  });
  var opened = [];
  window.addEventListener("beforeprint", function () {
    opened = Array.prototype.filter.call(document.querySelectorAll("details:not([open])"), function (d) {
      d.open = true;
      return true;
    });
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
})();
