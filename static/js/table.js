// The play table (games/table.html): fetches the seat API (GET /api/matches/{id}/seats/{seat}/) when the match's
// events stream says a ply was stored (and after the person's own move), draws the view, and sends the person's
// moves (POST .../actions/ with the view's ply). The state lives on the server; a reload comes back as it was.
//
// Every piece of text from a user (seat names, owners) reaches the page through text nodes only: `h()` (cards.js)
// builds elements and never parses strings as HTML. The Content-Security-Policy refuses inline script as a second guard.
(function () {
  "use strict";
  const root = document.getElementById("table");
  if (!root) return;
  const matchId = root.dataset.match, seat = Number(root.dataset.seat);
  const api = `/api/matches/${matchId}/seats/${seat}/`;
  const csrf = document.cookie.split("; ").find(c => c.startsWith("csrftoken="))?.split("=")[1] || "";
  const {SUITS, h, cardWords, face, backs, tr, logWords, reshuffleWords} = window.EightsCards;  // static/js/cards.js; words: gettext (jsi18n)
  let state = null, busy = false, shownDeals = null, pendingEight = null, shuffleSeen = null, shownOnce = false;
  // Between deals the score card stays with the last deal's table until the person presses Next deal, or for
  // data-next-deal-seconds (0: the next deal is drawn at once); the server deals on meanwhile.
  const pauseMs = Number(root.dataset.nextDealSeconds || 0) * 1000;
  let holdUntil = 0, holdTimer = null, wasMyTurn = false;
  let queued = null;  // a move chosen while the previous one was still on its way: {action, ply} of the view it was chosen on
  const $ = id => document.getElementById(id);
  const sleep = ms => new Promise(res => setTimeout(res, ms));

  // A card: its rank as real text (it scales with the page's text size), its suit as a shape (the four shapes
  // differ, so the table reads in greyscale), and its name in words for a screen reader: a button's accessible
  // name, or a visually hidden text on the cards that are only shown.
  function cardEl(code, big) {
    const cls = `card suit-${code[1]} ${SUITS[code[1]][2]}` + (big ? " big-card" : "");
    const faces = face(code);
    const el = big ? h("div", {className: cls}, ...faces, h("span", {className: "sr-only"}, cardWords(code)))
                   : h("button", {className: cls, type: "button", "aria-label": cardWords(code)}, ...faces);
    el.dataset.card = code;
    return el;
  }
  function say(text, error) {  // card codes in the engine's words ("the 5C") are spelled out for people
    const m = $("message");
    m.textContent = (text || "").replace(/\b([A2-9TJQK][CDHS])\b/g, c => `${cardWords(c)}`);
    m.className = error ? "error" : "";
  }

  // 32 random bytes of this browser's own with every move: the seat's first in a deal goes into the next deal's key,
  // so the service alone does not choose the cards from deal 2 on (docs/FAIRNESS.md, "Contributions")
  function contribution() {
    const bytes = new Uint8Array(32);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, b => b.toString(16).padStart(2, "0")).join("");
  }

  async function post(action, ply) {
    const r = await fetch(api + "actions/", {method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
      body: JSON.stringify({ply, action, contribution: contribution()})});
    let body = {};
    try { body = await r.json(); } catch (e) { /* an answer without JSON: said below by its status */ }
    return [r, body];
  }

  async function send(action, ply) {
    if (!state) return;
    if (ply === undefined) ply = state.ply;  // the view the person chose the move on
    if (busy) { queued = {action, ply}; return; }  // the stream showed the next turn before our last answer came
    busy = true;
    let covered = false;  // our stored ply's own event already began a fetch that shows it
    try {
      const [r, body] = await post(action, ply);  // a move never waits for the worker: stored, or 409 stale_ply
      if (r.ok) {
        say("");
        const before = fetchedAfter, seen = body.seat_view;
        fetchedAfter = Math.max(fetchedAfter, body.ply || 0);  // shown below (or by the fetch): its event needs none
        if (seen && !refreshing && (!state || seen.ply >= state.ply)) {  // the answer carries the view after the move
          counts.moveViews += 1;
          const key = JSON.stringify(seen);
          if (key !== lastKey) { lastKey = key; state = seen; etag = null; render(); }
          covered = wantedPly <= seen.ply;  // a ply stored since (its event came first) still wants a fetch
        } else covered = (body.ply || 0) <= before;
      } else if (r.status === 409 && body.error === "stale_ply") say(gettext("The table moved on; here is the current position."));
      else if (r.status >= 500 || !body.detail) say(tr(gettext("Something went wrong on our side (HTTP %(status)s); please try again."), {status: r.status}), true);
      else say(typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail), true);
    } catch (e) { say(gettext("Network trouble: the move may not have arrived. The table checks again."), true); }
    busy = false;
    if (queued) {  // sent with the ply it was chosen on: the server refuses it (409) if the table moved since
      const next = queued;
      queued = null;
      send(next.action, next.ply);
      return;
    }
    if (!covered) refresh();
  }

  function legal(type, card) {
    return (state?.legal_actions || []).filter(a => a.type === type && (card === undefined || a.card === card));
  }

  function onCard(code) {
    const plays = legal("play", code);
    if (plays.length && plays[0].suit !== undefined) { pendingEight = code; $("suit-picker").showModal(); return; }
    send({type: "play", card: code});  // an unplayable card comes back with the reason: what is needed
  }

  document.querySelectorAll("#suit-picker button").forEach(b => b.addEventListener("click", () => {
    $("suit-picker").close();
    if (b.dataset.suit && pendingEight) send({type: "play", card: pendingEight, suit: b.dataset.suit});
    pendingEight = null;
  }));
  $("draw").addEventListener("click", () => send({type: "draw"}));
  $("pass").addEventListener("click", () => send({type: "pass"}));
  $("announce").addEventListener("click", () => send({type: "announce"}));
  document.addEventListener("keydown", e => {
    if (e.target.tagName === "INPUT" || $("suit-picker").open) return;
    const key = e.key.toLowerCase();
    if (key === "d" && !$("draw").disabled) send({type: "draw"});
    if (key === "p" && !$("pass").disabled) send({type: "pass"});
  });

  async function showScorecard(number) {
    const r = await fetch(`/api/matches/${matchId}/deals/${number}/`, {credentials: "same-origin"});
    if (!r.ok) return;
    const d = await r.json();
    const names = state.seats.map(s => s.name);
    const box = h("div", {className: "scorecard", id: "scorecard-" + number, "aria-live": "polite"},
      h("h2", {}, d.outcome === "out" ? tr(gettext("Deal %(number)s: %(name)s went out"), {number, name: names[d.winner]})
        : tr(gettext("Deal %(number)s: blocked"), {number})));
    $("scorecard").replaceChildren(box);
    for (let s = 0; s < d.hands.length; s++) {
      const cards = h("span", {className: "cards"}), sumEl = h("span", {className: "sum"}, "0");
      const row = h("p", {}, h("strong", {}, names[s]), ": ", cards, " ", sumEl, " ", gettext("points"));
      box.append(row);
      let sum = 0;
      for (let i = 0; i < d.hands[s].length; i++) {  // turn the remaining cards up one by one, summing in view
        await sleep(180);
        cards.append(cardEl(d.hands[s][i], true));
        sum += d.card_values[s][i];
        sumEl.textContent = sum;
      }
      sumEl.textContent = d.hand_values[s];
      row.append(" · ", gettext("this deal adds"), " ", h("strong", {}, d.points[s]));
    }
    box.append(h("p", {className: "done"}, gettext("Score card complete.")));
  }

  // A reshuffle the page has not shown yet: the pile moves from the discard spot into the stock (CSS; still under
  // prefers-reduced-motion) and the notice says it in words until the next one.
  function showReshuffle(entry) {
    const pile = $("pile-move"), stock = document.querySelector(".spot-stock"), discard = document.querySelector(".spot-discard");
    for (const el of [pile, stock, discard]) el.classList.remove("moving", "receiving", "giving");
    void pile.offsetWidth;  // restart the animation when two reshuffles come close together
    pile.classList.add("moving"); stock.classList.add("receiving"); discard.classList.add("giving");
    root.dataset.reshuffles = String(Number(root.dataset.reshuffles || 0) + 1);  // for tests: movements shown
    const note = $("reshuffle-note");
    note.textContent = reshuffleWords(entry.count) + ".";
    note.hidden = false;
    clearTimeout(showReshuffle.timer);
    showReshuffle.timer = setTimeout(() => {  // the movement is over (1.6 s): the piles are as the numbers say
      pile.classList.remove("moving"); stock.classList.remove("receiving"); discard.classList.remove("giving");
    }, 2500);
  }
  function noticeReshuffles(v) {  // only those that happen while the page is open move; the log keeps them all
    const count = v.history.filter(e => e.type === "reshuffle").length, key = v.deal_number;
    if (shuffleSeen !== null && (key !== shuffleSeen.deal ? count > 0 : count > shuffleSeen.count)) {
      showReshuffle(v.history.filter(e => e.type === "reshuffle").pop());
    }
    if (shuffleSeen !== null && key !== shuffleSeen.deal && !count) $("reshuffle-note").hidden = true;  // a new deal
    shuffleSeen = {deal: key, count};
  }

  function releaseHold() {
    holdUntil = 0; clearTimeout(holdTimer);
    $("next-deal")?.remove();
    render();
  }
  // "Your turn" as a short tone, when the person asked for it (kept in this browser)
  function chime() {
    if (localStorage.getItem("eights-turn-sound") !== "yes" || !window.AudioContext) return;
    try {
      const audio = chime.ctx || (chime.ctx = new AudioContext()), tone = audio.createOscillator(), gain = audio.createGain();
      tone.frequency.value = 660; gain.gain.setValueAtTime(0.12, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
      tone.connect(gain).connect(audio.destination); tone.start(); tone.stop(audio.currentTime + 0.35);
    } catch (e) { /* no sound: the page says it in words */ }
  }
  if ($("turn-sound")) {
    $("turn-sound").checked = localStorage.getItem("eights-turn-sound") === "yes";
    $("turn-sound").addEventListener("change", e => localStorage.setItem("eights-turn-sound", e.target.checked ? "yes" : "no"));
  }

  function render() {
    if (shownDeals === null) shownDeals = state.deals_finished;
    if (state.deals_finished > shownDeals) {  // a deal ended: its score card first, the next deal after the pause
      shownDeals = state.deals_finished;
      showScorecard(shownDeals);
      if (pauseMs > 0 && state.status === "running" && shownOnce) {
        holdUntil = Date.now() + pauseMs;
        holdTimer = setTimeout(releaseHold, pauseMs);
        $("hand").replaceChildren(); $("draw").disabled = true; $("pass").disabled = true;
        $("pass").classList.remove("primary");
        drawTurn();
        return;
      }
    }
    if (holdUntil) { drawTurn(); return; }  // still showing the last deal's score card
    const v = state.view, mine = state.your_turn;
    if (mine && !wasMyTurn && shownOnce) chime();
    wasMyTurn = mine;
    root.dataset.ply = state.ply;  // for tests and assistive tools: the position shown
    root.dataset.yourTurn = mine ? "yes" : "no";
    // the seats in the order of play, from this one (the table turns with play: the seat after each box plays next)
    const step = (v.direction ?? 1) === 1 ? 1 : -1, n = state.seats.length;
    const order = state.seats.map((_, i) => state.seats[((seat + step * i) % n + n) % n]);
    $("seats").replaceChildren(...order.flatMap((s, i) => {
      const kind = s.guest ? gettext("guest") : s.kind === "human" ? gettext("person") : s.kind === "bot" ? gettext("bot") : gettext("house bot");
      const label = s.index !== seat ? kind : s.guest ? tr(gettext("you, %(kind)s"), {kind}) : gettext("you");
      const count = v.hand_counts[s.index];
      const box = h("div", {className: "seat" + (v.to_play === s.index ? " to-play" : "") + (s.index === seat ? " mine" : "")},
        h("strong", {}, s.name), " ", h("span", {className: `badge ${s.guest ? "guest" : s.kind}`}, label),
        s.stand_in ? " " : null, s.stand_in ? h("span", {className: "badge house"}, gettext("house bot stands in")) : null,
        s.kind === "bot" && s.owner ? " " : null,
        s.kind === "bot" && s.owner ? h("span", {className: "muted small"}, tr(gettext("by %(owner)s"), {owner: s.owner})) : null,
        h("br"), h("span", {className: "small"}, tr(ngettext("%(count)s card", "%(count)s cards", count), {count}) + " · " +
          tr(gettext("total %(total)s"), {total: v.totals[s.index]})),
        v.dealer === s.index ? " " : null, v.dealer === s.index ? h("span", {className: "muted small"}, gettext("(dealer)")) : null,
        v.to_play === s.index ? " " : null, v.to_play === s.index ? h("span", {className: "small to-play-mark"}, "▶ " + gettext("to play")) : null,
        s.index === seat ? null : backs(count));
      return i ? [h("span", {className: "play-order", "aria-hidden": "true"}, "→"), box] : [box];
    }));
    const newTop = v.top_card && $("top").firstElementChild?.dataset.card !== v.top_card;
    $("top").replaceChildren(...(v.top_card ? [cardEl(v.top_card, true)] : []));
    if (newTop && shownOnce) $("top").firstElementChild.classList.add("arrive");
    if (v.active_suit) {  // the suit to follow: its shape and its name in words
      const [sym, word] = SUITS[v.active_suit];
      $("suit").replaceChildren(h("span", {className: `suit-shape ${SUITS[v.active_suit][2]}`, "aria-hidden": "true"}, sym),
        " ", h("span", {className: "suit-name"}, word),
        ...(v.declared ? [" ", h("span", {className: "badge"}, gettext("declared"))] : []));
    } else $("suit").textContent = gettext("any card leads");
    if ($("direction")) {  // only under reverse rules: play never reverses otherwise, and no arrow is shown
      const clockwise = (v.direction ?? 1) === 1;
      $("direction").replaceChildren(h("span", {className: "arrow", "aria-hidden": "true"}, clockwise ? "↻" : "↺"),
        " " + (clockwise ? gettext("Play goes clockwise (an ace reverses it).") : gettext("Play goes anticlockwise (an ace reverses it).")));
    }
    $("stock").textContent = v.stock_count; $("discard").textContent = v.discard_count;
    $("totals").textContent = tr(gettext("deal %(deal)s · to %(target)s"), {deal: v.deal_number, target: v.target});
    const playable = new Set(legal("play").map(a => a.card));
    const held = new Set([...$("hand").children].map(el => el.dataset.card));
    $("hand").replaceChildren(...v.hand.map(code => {
      const el = cardEl(code, false);
      if (shownOnce && !held.has(code)) el.classList.add("arrive");
      if (mine && playable.has(code)) { el.classList.add("playable"); el.setAttribute("aria-label", tr(gettext("%(card)s, playable"), {card: cardWords(code)})); }
      el.addEventListener("click", () => onCard(code));
      return el;
    }));
    const draws = legal("draw").length, passes = legal("pass").length;
    $("draw").disabled = !mine || !draws;
    $("draw").textContent = v.draws_left === null || v.draws_left === undefined ? gettext("Draw")
      : tr(gettext("Draw (%(left)s left)"), {left: v.draws_left});
    if (v.pending_draw) $("draw").textContent = tr(ngettext("Take %(count)s penalty card", "Take %(count)s penalty cards", v.pending_draw), {count: v.pending_draw});
    $("pass").disabled = !mine || !passes;
    // the one thing left to do is to pass (e.g. the draw limit used and no card fits): say so and light the button
    $("pass").classList.toggle("primary", mine && passes > 0 && state.legal_actions.length === 1);
    $("announce").hidden = !legal("announce").length;
    const names = state.seats.map(s => s.name);
    drawTurn();
    const log = $("log"), grew = log.childElementCount !== v.history.length;
    log.replaceChildren(...v.history.map(entry => {
      const who = names[entry.seat] ?? tr(gettext("seat %(seat)s"), {seat: entry.seat});
      return h("li", entry.type === "reshuffle" ? {className: "log-reshuffle"} : {}, logWords(entry, who));
    }));
    if (grew) log.scrollTop = log.scrollHeight;  // the newest ply in view
    noticeReshuffles(v);
    $("commitment-deal").textContent = state.deal_number;  // the deal's commitment: docs/FAIRNESS.md
    $("commitment").textContent = state.commitment || gettext("none (dealt before commitments)");
    shownOnce = true;
  }

  function drawTurn() {  // also every second, so the move clock counts down
    if (!state) return;
    const v = state.view, names = state.seats.map(s => s.name);
    $("my-hand").hidden = state.status !== "running";  // nothing left to play once the match is over
    if ($("deal-again")) $("deal-again").hidden = state.status === "running";  // a casual match vs house bots: again
    if ($("rematch-form")) $("rematch-form").hidden = state.status === "running";  // a table's match: play it again
    if (state.status !== "running") $("reshuffle-note").hidden = true;  // the last reshuffle's notice is news no more
    if (holdUntil) {
      const left = " " + tr(gettext("(or in %(seconds)s s)"), {seconds: Math.max(0, Math.ceil((holdUntil - Date.now()) / 1000))});
      if ($("next-deal")) { $("next-deal-left").textContent = left; return; }  // the button keeps the focus
      const next = h("button", {type: "button", className: "primary", id: "next-deal"}, gettext("Next deal"));
      next.addEventListener("click", releaseHold);
      $("turn").replaceChildren(h("strong", {}, tr(gettext("Deal %(number)s is over: see the score card."), {number: shownDeals})), " ", next,
        h("span", {className: "muted small", id: "next-deal-left"}, left));
      return;
    }
    if (state.status === "aborted") {
      $("turn").replaceChildren(h("strong", {}, gettext("This match was ended early, unrated.")), ` ${state.abort_reason || ""} `,
        h("a", {href: "/"}, gettext("Deal a new table")), ".");
    } else if (state.status !== "running") {
      const me = state.seats[seat], totals = state.seats.map(s => `${s.name} ${v.totals[s.index]}`).join(" · ");
      const place = me.place === 1 ? gettext("You won!") : tr(gettext("Your place: %(place)s of %(seats)s."), {place: me.place ?? 0, seats: state.seats.length});
      $("turn").replaceChildren(h("strong", {}, gettext("The match is over.") + " " + place), " " + tr(gettext("Final totals: %(totals)s."), {totals}) + " ",
        h("a", {href: `/matches/${matchId}/`}, gettext("See the match page")), " " + gettext("(deal by deal, and the rating change of a ladder match)."));
    } else if (state.your_turn) {
      const left = state.move_deadline ? Math.max(0, Math.round((new Date(state.move_deadline) - new Date()) / 1000)) : null;
      const onlyPass = state.legal_actions.length === 1 && state.legal_actions[0].type === "pass";
      $("turn").replaceChildren(h("strong", {}, gettext("Your turn.")),
        " " + (v.drawn_card ? tr(gettext("You drew the %(card)s."), {card: cardWords(v.drawn_card)}) + " " : ""),
        ...(onlyPass ? [h("strong", {}, gettext("No card fits and you cannot draw: press Pass.") + " ")] : []),
        ...(left !== null ? [h("span", {className: "muted small"}, tr(gettext("%(seconds)s s left on your clock"), {seconds: left}))] : []));
    } else {
      $("turn").textContent = tr(gettext("Waiting for %(name)s."), {name: names[v.to_play] ?? "…"});
    }
  }
  setInterval(drawTurn, 1000);
  // Pushed updates: the match's events stream (GET /api/matches/{id}/events/, docs/LIVE.md) says when a ply
  // is stored; only then is the seat's view fetched, with If-None-Match so an unchanged view costs a 304 (our own
  // move's answer carries the view after it: no fetch). A slow poll stays as a fallback, faster while the stream is down.
  const SLOW_POLL_MS = 10000, FAST_POLL_MS = 2000;
  // fetchedAfter: the highest ply count known stored when a fetch began (an event up to it needs no fetch of its own)
  let lastKey = "", etag = null, refreshing = null, again = false, wantedPly = 0, fetchedAfter = 0, streamOpen = false;
  const counts = window.EightsTable = {viewFetches: 0, notModified: 0, events: 0, applied: 0, moveViews: 0};
  async function fetchView() {
    counts.viewFetches += 1;
    const r = await fetch(api, {credentials: "same-origin", cache: "no-store",
                                headers: etag ? {"If-None-Match": etag} : {}});
    if (r.status === 304) { counts.notModified += 1; return; }
    if (!r.ok) return;
    etag = r.headers.get("ETag");
    const next = await r.json(), key = JSON.stringify(next);
    if (key === lastKey) return;  // nothing moved: keep the page (and the keyboard focus) as it is
    lastKey = key; state = next; render();
  }
  function refresh() {  // one fetch at a time; a ply announced meanwhile fetches once more afterwards
    if (refreshing) { again = true; return refreshing; }
    refreshing = (async () => {
      for (let tries = 0; tries < 4; tries++) {  // bounded: a view that lags its event waits for the next poll
        again = false;
        try { await fetchView(); } catch (e) { /* the next event or poll tries again */ }
        const behind = state && state.status === "running" && state.ply < wantedPly;
        if (!again && !behind) break;
        if (behind && !again) await sleep(150);
      }
      refreshing = null;
    })();
    return refreshing;
  }
  // An opponent's ply that leaves the turn with the others changes nothing private to this seat: the event's public
  // view says all of it (counts, top card, suit, piles, history, totals), so it is drawn without a fetch. Anything
  // else fetches the seat view: our turn, our seat in the ply (a fallback move, a penalty), a new deal, the end, a
  // gap in the plies, or reverse rules (the public view has no direction).
  function applyPublic(message) {
    const pub = message.public, ply = message.ply;
    if (!state || !pub || state.status !== "running" || state.waits_for || pub.status !== "running") return false;
    if (ply.ply !== state.ply + 1 || pub.ply !== ply.ply || pub.deal_number !== state.deal_number) return false;
    if (pub.to_play === seat || ply.seat === seat || root.dataset.reverses === "yes") return false;
    const log = Array.isArray(ply.log) ? ply.log : null;
    if (!log || log.some(entry => entry.seat === seat) || !pub.history.every(p => Array.isArray(p.log))) return false;
    const history = pub.history.flatMap(p => p.log);
    const last = history.filter(entry => entry.type === "play" || entry.type === "declare").pop();  // draws keep it
    const declared = !!last && ((last.type === "play" && last.card === pub.top_card && !!last.suit) || last.type === "declare");
    state = Object.assign({}, state, {ply: pub.ply, your_turn: false, legal_actions: [], move_deadline: null,
      view: Object.assign({}, state.view, {to_play: pub.to_play, hand_counts: pub.hand_counts, top_card: pub.top_card,
        active_suit: pub.suit_to_follow, declared, stock_count: pub.stock_size, discard_count: pub.discard_size,
        totals: pub.totals, dealer: pub.dealer, history})});
    lastKey = "";  // the next fetch draws whatever it brings
    render();
    return true;
  }
  let pollTimer = null;
  function pollEvery(ms) {
    clearInterval(pollTimer);
    pollTimer = setInterval(() => { if (!busy) refresh(); }, ms);
  }
  function listen() {
    if (typeof EventSource === "undefined") { pollEvery(FAST_POLL_MS); return; }
    const source = new EventSource(`/api/matches/${matchId}/events/` + (state ? `?last_event_id=${state.ply}` : ""));
    source.onopen = () => { streamOpen = true; root.dataset.stream = "open"; pollEvery(SLOW_POLL_MS); };
    source.addEventListener("ply", e => {
      counts.events += 1;
      const message = JSON.parse(e.data), ply = message.ply.ply;
      wantedPly = Math.max(wantedPly, ply);
      if (!(ply > fetchedAfter && (!state || ply > state.ply))) return;
      if (!refreshing && applyPublic(message)) { counts.applied += 1; return; }
      fetchedAfter = ply;
      refresh();
    });
    source.addEventListener("end", () => { source.close(); root.dataset.stream = "ended"; refresh(); });
    source.onerror = () => {  // the browser reconnects by itself (Last-Event-ID) unless refused: poll faster meanwhile
      streamOpen = false; root.dataset.stream = "down";
      pollEvery(FAST_POLL_MS);
      if (source.readyState === EventSource.CLOSED && root.dataset.stream !== "ended") {
        setTimeout(() => { if (!streamOpen && (!state || state.status === "running")) listen(); }, SLOW_POLL_MS);
      }
    };
  }
  pollEvery(SLOW_POLL_MS);
  refresh().then(listen);
})();
