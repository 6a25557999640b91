// feira panel: progressive enhancement only. Every page works without this script; it adds
// the copy buttons (clipboard) and moves focus to the first field with an error.
(function () {
  "use strict";
  document.addEventListener("click", function (e) {
    var button = e.target instanceof Element ? e.target.closest("button.copy") : null;
    if (!button || !navigator.clipboard) return;
    navigator.clipboard.writeText(button.getAttribute("data-copy") || "").then(function () {
      var label = button.textContent;
      button.textContent = document.documentElement.lang === "pt-BR" ? "Copiado" : "Copied";
      setTimeout(function () { button.textContent = label; }, 2000);
    });
  });
  document.addEventListener("DOMContentLoaded", function () {
    var invalid = document.querySelector("[aria-invalid='true']");
    if (invalid instanceof HTMLElement) invalid.focus();
  });
})();
