// The watch page (games/watch.html): anyone follows a running match as it is played, from its public view only (the
// top card, the suit to follow, hand counts, the stock and discard sizes, the deal's public history, totals, whose
// turn and their clock; never a hand). Each stored ply arrives as an `event: ply` of the match's events stream
// (GET /api/matches/{id}/events/, server-sent events, docs/LIVE.md); when the stream cannot be held open the page
// polls the public view (GET /api/matches/{id}/public/) with If-None-Match, which answers 304 while nothing moved.
// When the match ends (`event: end`) the page goes to its replay at the last ply (the featured page: to the next
// featured match).
//
// Player names are user text: they reach the page through text nodes only (`h()`, cards.js, never parses HTML),
// and the Content-Security-Policy refuses inline script as a second guard.
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("watch-data").textContent);
  const root = document.getElementById("watch");
  if (!root) return;
  const IDLE_RETRY_MS = 8000, POLL_MS = 2000, END_PAUSE_MS = 1500, FEATURED_END_PAUSE_MS = 5000;
  if (!data.match_id) {  // the featured page with no match being played: look again now and then
    setTimeout(() => location.reload(), IDLE_RETRY_MS);
    return;
  }
  const {SUITS, h, cardWords, face, tr, logWords} = window.EightsCards;  // static/js/cards.js; words: gettext (jsi18n)
  const $ = id => document.getElementById(id);
  let view = null, etag = null, source = null, pollTimer = null, ended = false;
  // for the browser tests: the ply numbers in the order the events brought them, and how the page is following
  const seen = window.EightsWatch = {plies: [], polls: 0, notModified: 0};

  // A card as the table draws it (table.js): its rank as text, its suit as a shape, its name in words for a screen
  // reader.
  function cardEl(code) {
    const el = h("div", {className: `card big-card suit-${code[1]} ${SUITS[code[1]][2]}`},
      ...face(code), h("span", {className: "sr-only"}, cardWords(code)));
    el.dataset.card = code;
    return el;
  }

  function connectionSays(text, live) {
    const el = $("connection");
    el.textContent = text;
    el.classList.toggle("live", !!live);
    root.dataset.live = live ? "yes" : "no";
  }

  const nameOf = seat => (view && view.seats[seat] ? view.seats[seat].name : tr(gettext("seat %(seat)s"), {seat}));

  function plyWords(p) {
    const who = nameOf(p.seat);
    let words;
    switch (p.type) {
      case "draw": words = tr(ngettext("%(who)s drew %(count)s card", "%(who)s drew %(count)s cards", p.drew ?? 1), {who, count: p.drew ?? 1}); break;
      default: words = logWords(p, who);
    }
    return words;
  }

  function plyItems(p) {  // a ply as log lines: its public log when given, else the ply's own words
    const fault = p.fault_kind ? " " + tr(gettext("(fault: %(kind)s; the fallback move was played)"), {kind: p.fault_kind.replace(/_/g, " ")}) : "";
    const lines = Array.isArray(p.log) && p.log.length ? p.log.map(entry => logWords(entry, nameOf(entry.seat))) : [plyWords(p)];
    return lines.map((text, i) => h("li", p.fault_kind ? {className: "fault"} : {}, text + (i === 0 ? fault : "")));
  }

  function render() {
    const v = view;
    root.dataset.ply = String(v.ply);
    root.dataset.deal = String(v.deal_number);
    root.dataset.status = v.status;
    $("seats").replaceChildren(...v.seats.map(s => {
      const kind = s.guest ? gettext("guest") : s.kind === "human" ? gettext("person") : s.kind === "bot" ? gettext("bot") : gettext("house bot");
      const count = v.hand_counts[s.index];
      return h("div", {className: "seat" + (v.to_play === s.index ? " to-play" : "")},
        h("strong", {}, s.name), " ", h("span", {className: `badge ${s.guest ? "guest" : s.kind}`}, kind), h("br"),
        h("span", {className: "small count"}, tr(ngettext("%(count)s card", "%(count)s cards", count), {count}) + " · " +
          tr(gettext("total %(total)s"), {total: v.totals[s.index]})),
        v.dealer === s.index ? " " : null, v.dealer === s.index ? h("span", {className: "muted small"}, gettext("(dealer)")) : null,
        v.to_play === s.index ? " " : null, v.to_play === s.index ? h("span", {className: "small"}, "▶ " + gettext("to play")) : null);
    }));
    $("top").replaceChildren(...(v.top_card ? [cardEl(v.top_card)] : []));
    if (v.suit_to_follow && SUITS[v.suit_to_follow]) {
      const [sym, word, colour] = SUITS[v.suit_to_follow];
      $("suit").replaceChildren(h("span", {className: `suit-shape ${colour}`, "aria-hidden": "true"}, sym), " ",
        h("span", {className: "suit-name"}, word));
    } else $("suit").textContent = v.top_card ? "" : gettext("any card leads");
    $("stock").textContent = v.stock_size;
    $("discard").textContent = v.discard_size;
    $("where").textContent = tr(gettext("deal %(deal)s · ply %(ply)s"), {deal: v.deal_number, ply: v.ply});
    const log = $("log");
    log.replaceChildren(...v.history.flatMap(plyItems));
    log.scrollTop = log.scrollHeight;  // the newest ply in view
    drawTurn();
  }

  function drawTurn() {  // also every second, so the clock counts
    if (!view || ended) return;
    if (view.status !== "running" || view.to_play === null || view.to_play === undefined) {
      $("turn").textContent = view.status === "running" ? gettext("Between plies…")
        : view.status === "aborted" ? gettext("The match was ended early.") : gettext("The match is over.");
      return;
    }
    const clock = view.clock || {}, now = Date.now();
    const parts = [h("strong", {}, tr(gettext("%(name)s to play."), {name: nameOf(view.to_play)}))];
    if (clock.move_deadline) {
      const left = Math.max(0, Math.round((new Date(clock.move_deadline) - now) / 1000));
      parts.push(" ", h("span", {className: "muted small"}, tr(gettext("%(seconds)s s left on their clock"), {seconds: left})));
    } else if (clock.to_play_since) {
      const since = Math.max(0, Math.round((now - new Date(clock.to_play_since)) / 1000));
      parts.push(" ", h("span", {className: "muted small"}, tr(gettext("thinking for %(seconds)s s"), {seconds: since})));
    }
    $("turn").replaceChildren(...parts);
  }
  setInterval(drawTurn, 1000);

  // Between deals, the deal's score card as a watcher may see it while the match runs: how many points each seat's
  // total moved (the hands are turned up only for the players, and for everyone once the match is over).
  function showDealResult(before, after) {
    const rows = after.seats.map(s => {
      const gained = (after.totals[s.index] ?? 0) - (before.totals[s.index] ?? 0);
      return h("li", {}, h("strong", {}, s.name), ": " + tr(gettext("%(points)s this deal, total %(total)s"),
        {points: (gained >= 0 ? "+" : "") + gained, total: after.totals[s.index]}));
    });
    $("deal-card").replaceChildren(h("h2", {}, tr(gettext("Deal %(number)s is over"), {number: before.deal_number})), h("ul", {}, ...rows),
      h("p", {className: "muted small"}, after.status === "running" ? tr(gettext("Deal %(number)s is under way."), {number: after.deal_number}) : ""));
    $("deal-card").hidden = false;
    root.dataset.dealsShown = String(before.deal_number);  // for tests: the last deal whose result is shown
  }

  function show(next) {  // a public view; an older one than shown (a late poll) is dropped
    if (view && next.ply < view.ply && next.status === view.status) return;
    if (view && next.deal_number > view.deal_number) showDealResult(view, next);
    view = next;
    render();
  }

  // Bursts of stored plies (house bots play many at once) are shown one every data.pace_ms, so a watcher can follow
  // them; a backlog of more than PACE_BACKLOG is skipped to its last few (each view is the whole table: nothing is
  // lost but the motion). pace_ms 0: shown as they come.
  const PACE_BACKLOG = 40, PACE_KEEP = 8, paceQueue = [];
  let pacing = null;
  function paced(step) {
    if (!data.pace_ms) { step(); return; }
    paceQueue.push(step);
    if (paceQueue.length > PACE_BACKLOG) paceQueue.splice(0, paceQueue.length - PACE_KEEP);
    if (!pacing) pump();
  }
  function pump() {
    const step = paceQueue.shift();
    if (!step) { pacing = null; return; }
    step();
    pacing = setTimeout(pump, data.pace_ms);
  }

  function finish(end) {  // the match is over: its final totals, then its replay (or the next featured match)
    if (ended) return;
    ended = true;
    stopPolling();
    if (source) source.close();
    const totals = end.totals || (view ? view.totals : []);
    const rows = (view ? view.seats : totals.map((_, i) => ({index: i, name: tr(gettext("seat %(seat)s"), {seat: i})}))).map(s =>
      h("li", {}, h("strong", {}, s.name), ": " + (end.places && end.places[s.index]
        ? tr(gettext("%(points)s points, place %(place)s"), {points: totals[s.index] ?? "?", place: end.places[s.index]})
        : tr(gettext("%(points)s points"), {points: totals[s.index] ?? "?"}))));
    const outcome = end.status || "finished";
    const next = data.featured ? gettext("The next featured match follows in a few seconds.")
      : end.replay_url ? gettext("Its replay opens now, at the last ply.") : gettext("Its match page opens now.");
    const over = outcome === "aborted" ? gettext("The match was ended early.") : gettext("The match is over.");
    $("end").replaceChildren(h("h2", {}, over), h("ul", {}, ...rows), h("p", {}, next));
    $("end").hidden = false;
    $("turn").textContent = over;
    root.dataset.status = outcome;
    root.dataset.ended = "yes";
    connectionSays(gettext("The match is over."), false);
    setTimeout(() => location.assign(data.next_url), data.featured ? FEATURED_END_PAUSE_MS : END_PAUSE_MS);
  }

  // -- polling with ETags: the fallback when the events stream cannot be held open
  async function poll() {
    if (ended) return;
    seen.polls += 1;
    try {
      const r = await fetch(data.public_url, {credentials: "same-origin", cache: "no-store",
                                              headers: etag ? {"If-None-Match": etag} : {}});
      if (r.status === 304) { seen.notModified += 1; return; }
      if (!r.ok) {
        let body = {};
        try { body = await r.json(); } catch (e) { /* said by the status below */ }
        connectionSays(typeof body.detail === "string" ? body.detail : tr(gettext("The match cannot be shown now (HTTP %(status)s); trying again."), {status: r.status}), false);
        return;
      }
      etag = r.headers.get("ETag");
      const next = await r.json();
      show(next);
      if (next.status !== "running") finish({status: next.status, totals: next.totals, replay_url: next.replay_url});
    } catch (e) { /* network trouble: the next poll tries again */ }
  }
  function startPolling() {
    if (pollTimer || ended) return;
    pollTimer = setInterval(poll, POLL_MS);
  }
  function stopPolling() { clearInterval(pollTimer); pollTimer = null; }

  // -- the events stream: one `ply` event per stored ply, `end` once the match is over
  function follow() {
    if (typeof EventSource === "undefined") { connectionSays(gettext("Following by polling (this browser has no event streams)."), false); startPolling(); return; }
    const url = data.events_url + (view ? `?last_event_id=${view.ply}` : "");
    source = new EventSource(url);
    source.onopen = () => { stopPolling(); connectionSays(gettext("Live: each ply appears as it is stored."), true); };
    source.addEventListener("ply", e => {
      const message = JSON.parse(e.data);
      seen.plies.push(message.ply.ply);
      if (message.public) paced(() => show(message.public));
    });
    source.addEventListener("end", e => { const end = JSON.parse(e.data); paced(() => finish(end)); });
    source.onerror = () => {
      if (ended) return;
      // the browser reconnects by itself (sending Last-Event-ID) unless the stream was refused; poll meanwhile
      connectionSays(gettext("Reconnecting… (following by polling meanwhile)"), false);
      startPolling();
      if (source.readyState === EventSource.CLOSED) setTimeout(() => { if (!ended) follow(); }, 5000);
    };
  }

  poll().then(() => { if (!ended) follow(); });
})();
