// A ladder page while its person waits for an opponent: ask Play now again every 3 s and go to the table when a
// match starts. The page marks the waiting notice with the API address (#waiting[data-play-url]).
(function () {
  "use strict";
  const waiting = document.getElementById("waiting");
  if (!waiting) return;
  const csrf = document.cookie.split("; ").find(c => c.startsWith("csrftoken="))?.split("=")[1] || "";
  setInterval(async () => {
    try {
      const r = await fetch(waiting.dataset.playUrl, {method: "POST", credentials: "same-origin",
        headers: {"X-CSRFToken": csrf, "Content-Type": "application/json"}, body: "{}"});
      if (r.status === 201) window.location = (await r.json()).table_url;
    } catch (e) { /* the next try */ }
  }, 3000);
})();
