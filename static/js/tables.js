// A table's invite page: asks the table's state every 2 s and reloads the page when a seat is taken or freed or
// the match starts (the page then sends whoever sits there to the match's table). No HTML is built here.
(function () {
  "use strict";
  var box = document.getElementById("table-status");
  if (!box || box.dataset.status !== "waiting") { return; }
  var code = box.dataset.code, free = box.dataset.free;
  var link = document.getElementById("invite-link");
  if (link) { link.addEventListener("focus", function () { link.select(); }); }
  function check() {
    fetch("/api/tables/" + encodeURIComponent(code) + "/", {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (t) {
        if (t && (t.status !== "waiting" || String(t.free_seats) !== free)) { window.location.reload(); return; }
        window.setTimeout(check, 2000);
      })
      .catch(function () { window.setTimeout(check, 5000); });
  }
  window.setTimeout(check, 2000);
})();
