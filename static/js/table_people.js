// The people at a table of more than one person (games/table.html, "At the table"): a heartbeat that says this
// person is here (POST /api/matches/{id}/seats/{seat}/presence/, every beat_seconds), who else is here or away,
// "End the wait" for a person away on their turn (POST .../end-wait/: a house bot takes their seat at a casual
// table, they forfeit a rated one), and table talk: fixed phrases only (POST .../talk/), which each person may mute
// (kept in this browser). Text from users (names) reaches the page through text nodes only (h(), cards.js).
(function () {
  "use strict";
  const root = document.getElementById("table"), panel = document.getElementById("table-people");
  if (!root || !panel) return;
  const {h, tr} = window.EightsCards;  // words: gettext (jsi18n)
  const seat = Number(root.dataset.seat);
  const api = `/api/matches/${root.dataset.match}/seats/${seat}/`;
  const csrf = document.cookie.split("; ").find(c => c.startsWith("csrftoken="))?.split("=")[1] || "";
  const $ = id => document.getElementById(id);
  const MUTE_KEY = "eights-talk-muted";
  let beatMs = 5000, timer = null, last = null, shownTalk = 0, over = false;
  let notice = null;  // what "End the wait" did: kept in view (the beats that follow offer no wait) until another is offered

  async function post(path, body) {
    const r = await fetch(api + path, {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf}, body: JSON.stringify(body || {})});
    let data = {};
    try { data = await r.json(); } catch (e) { /* no JSON: the status says it */ }
    return [r, data];
  }

  function away(p) {
    if (p.left) return p.stand_in ? gettext("left: a house bot plays their seat") : gettext("left the match");
    if (p.present) return gettext("here");
    return p.seen_seconds_ago === null ? gettext("not seen yet") : tr(gettext("away for %(seconds)s s"), {seconds: p.seen_seconds_ago});
  }

  function drawPeople(data) {
    $("people").replaceChildren(...data.people.map(p => h("li", {className: p.present ? "here" : "away"},
      h("span", {className: "presence-dot", "aria-hidden": "true"}), " ",
      h("strong", {}, p.index === seat ? gettext("You") : p.name), " · " + (p.index === seat ? gettext("here") : away(p)),
      data.to_play === p.index ? " · " + gettext("to play") : "")));
    const box = $("end-wait"), wait = data.end_wait;
    const leaver = wait && data.people.find(p => p.index === wait.seat);
    if (!wait || !leaver || leaver.present) {
      box.hidden = !notice;
      box.replaceChildren(...(notice ? [notice] : []));
      return;
    }
    notice = null;
    const what = wait.rated ? gettext("they forfeit this rated match") : gettext("a house bot plays their seat from now on");
    box.hidden = false;
    if (wait.after_s > 0) {
      box.replaceChildren(tr(gettext("%(name)s seems away. You may end the wait in %(seconds)s s (%(what)s)."), {name: leaver.name, seconds: wait.after_s, what}));
      return;
    }
    const button = h("button", {type: "button", className: "primary", id: "end-wait-button"},
                     tr(gettext("End the wait for %(name)s"), {name: leaver.name}));
    button.addEventListener("click", async () => {
      button.disabled = true;
      const [r, body] = await post("end-wait/", {seat: wait.seat});
      const said = r.ok ? (body.outcome === "forfeit" ? tr(gettext("%(name)s forfeits the match."), {name: leaver.name})
        : tr(gettext("A house bot plays %(name)s's seat now."), {name: leaver.name})) : (body.detail || tr(gettext("Not now (HTTP %(status)s)."), {status: r.status}));
      notice = r.ok ? said : null;
      box.replaceChildren(said);
      beat();
    });
    box.replaceChildren(tr(gettext("%(name)s has been away on their turn for a while:"), {name: leaver.name}), " ", button, ` (${what}).`);
  }

  function muted() { return localStorage.getItem(MUTE_KEY) === "yes"; }
  function drawTalk(talk, names) {
    const log = $("talk-log");
    for (const t of talk) {
      if (t.id <= shownTalk) continue;
      shownTalk = t.id;
      if (t.seat !== seat && muted()) continue;
      log.append(h("li", {}, h("strong", {}, t.seat === seat ? gettext("You") : (names[t.seat] || tr(gettext("seat %(seat)s"), {seat: t.seat}))),
                 `: ${t.text}`));
      while (log.childElementCount > 8) log.firstElementChild.remove();
    }
  }

  async function beat() {
    clearTimeout(timer);
    try {
      const [r, data] = await post("presence/");
      if (r.ok) {
        last = data;
        beatMs = (data.beat_seconds || 5) * 1000;
        const names = Object.fromEntries(data.people.map(p => [p.index, p.name]));
        drawPeople(data);
        drawTalk(data.talk || [], names);
        over = data.to_play === null;
        panel.querySelectorAll(".talk-button").forEach(b => { b.disabled = over; });
      }
    } catch (e) { /* the next beat tries again */ }
    if (!over) timer = setTimeout(beat, document.hidden ? beatMs * 2 : beatMs);
  }

  panel.querySelectorAll(".talk-button").forEach(b => b.addEventListener("click", async () => {
    b.disabled = true;
    const [r, body] = await post("talk/", {phrase: b.dataset.phrase});
    setTimeout(() => { b.disabled = over; }, 3000);
    if (r.ok) drawTalk([body], {});
    else $("talk-log").append(h("li", {className: "muted"}, body.detail || tr(gettext("Not said (HTTP %(status)s)."), {status: r.status})));
  }));
  $("talk-mute").checked = muted();
  $("talk-mute").addEventListener("change", e => localStorage.setItem(MUTE_KEY, e.target.checked ? "yes" : "no"));
  document.addEventListener("visibilitychange", () => { if (!document.hidden && !over) beat(); });
  beat();
  window.EightsPeople = {beat, last: () => last};
})();
