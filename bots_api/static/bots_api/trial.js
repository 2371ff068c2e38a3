// The trial page while its matches run: asks the trial's API every 5 s and reloads the page when a match has
// ended since it was drawn (results as they come in). No HTML is built here.
(function () {
  "use strict";
  var box = document.getElementById("trial-live");
  if (!box) { return; }
  var url = box.getAttribute("data-api-url");
  var ended = parseInt(box.getAttribute("data-ended"), 10);
  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (t) {
        if (!t) { setTimeout(poll, 15000); return; }
        var now = t.summary.finished + t.summary.aborted;
        if (now !== ended || t.status !== "running") { window.location.reload(); return; }
        setTimeout(poll, 5000);
      })
      .catch(function () { setTimeout(poll, 15000); });
  }
  setTimeout(poll, 5000);
})();
