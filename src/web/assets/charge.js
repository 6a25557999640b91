// feira: the buyer's page of a charge. Copy buttons only; no third-party code, no inline script (CSP).
(function () {
  "use strict";
  document.addEventListener("click", function (e) {
    var button = e.target && e.target.closest ? e.target.closest("button[data-copy]") : null;
    if (!button) return;
    var field = document.getElementById(button.dataset.copy);
    var status = document.getElementById(button.dataset.copy + "-copied");
    if (!field) return;
    field.select();
    var done = function () { if (status) status.textContent = button.dataset.copied || ""; };
    if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(done, function () { done(); });
    else {
      try { document.execCommand("copy"); } catch (_) { /* selected: the buyer copies it */ }
      done();
    }
  });
})();
