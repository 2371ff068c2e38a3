// The bot page's check panel (templates/bots_api/bot_detail.html): while the last check is queued or running,
// ask the API for it every second and show its outcome when it is done. Text only (textContent), never HTML: a
// check's detail quotes what the bot answered. Words: Django's JavaScript catalogue (base.html loads it first).
(function () {
  "use strict";
  var panel = document.getElementById("bot-check");
  if (!panel || panel.dataset.state === "passed" || panel.dataset.state === "failed") {
    return;
  }
  var status = document.getElementById("bot-check-status");
  var list = document.getElementById("bot-check-results");
  var badge = document.getElementById("bot-badge");
  var tries = 0;
  var MAX_TRIES = 180; // a check takes at most about 30 s; give up quietly after 3 minutes

  function showBadge(check) {
    // the page's badge, as the server would render it now: suspended > disabled > not verified > ready
    if (!badge) {
      return;
    }
    var suspended = panel.dataset.suspended === "yes" && check.state !== "passed";
    var enabled = panel.dataset.enabled === "yes";
    var words = suspended ? [gettext("suspended"), "aborted"] : !enabled ? [gettext("disabled"), ""]
      : check.state === "passed" ? [gettext("ready"), "finished"] : [gettext("not verified"), "running"];
    badge.textContent = words[0];
    badge.className = "badge " + words[1];
  }

  function show(check) {
    panel.dataset.state = check.state;
    if (check.state !== "passed" && check.state !== "failed") {
      status.textContent = interpolate(gettext("Checking your bot… (%(state)s)"), {state: check.state}, true);
      return false;
    }
    status.textContent = interpolate(check.state === "passed" ? gettext("Passed: %(detail)s") : gettext("Failed: %(detail)s"),
      {detail: check.detail}, true);
    list.replaceChildren();
    check.checks.forEach(function (c) {
      var item = document.createElement("li");
      var word = document.createElement("code");
      word.textContent = c.status;
      item.append(word, " " + c.name + ": " + c.detail);
      list.append(item);
    });
    showBadge(check);
    return true;
  }

  function poll() {
    tries += 1;
    fetch(panel.dataset.pollUrl, {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.json();
      })
      .then(function (check) {
        if (!show(check) && tries < MAX_TRIES) {
          setTimeout(poll, 1000);
        }
      })
      .catch(function () {
        if (tries < MAX_TRIES) {
          setTimeout(poll, 2000);
        } else {
          status.textContent = gettext("Still checking: reload the page in a while.");
        }
      });
  }

  setTimeout(poll, 500);
}());
