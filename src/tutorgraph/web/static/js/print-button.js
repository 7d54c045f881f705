/* A "Print this report" button: the browser's print dialog (print styles in app.css). */
(function () {
  "use strict";
  document.querySelectorAll(".print-button").forEach(function (button) {
    button.addEventListener("click", function () { window.print(); });
  });
})();
