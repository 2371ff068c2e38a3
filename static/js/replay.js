// The replay viewer (games/replay.html): steps through every ply of every deal of a finished match, all hands face
// up or as one seat saw them. The frames come in the page as a JSON data block (#replay-data, built by
// eights_engine.frames.replay_frames: per deal a start position and per ply a delta); `decode` turns a deal's deltas
// into its positions exactly as frames.positions does in Python (tests compare both with the engine).
//
// Player names and fault texts are user text: they reach the page through text nodes only (`h()`, cards.js, never
// parses HTML), and the Content-Security-Policy refuses inline script as a second guard.
(function () {
  "use strict";
  const {SUITS, h, cardWords, face, tr, logWords} = window.EightsCards;  // static/js/cards.js; words: gettext (jsi18n)
  const RANKS = "A23456789TJQK", SUIT_ORDER = "CDHS";
  const FIELDS = ["top", "suit", "declared", "stock", "discard", "to_play", "pending", "direction", "awaiting", "out"];
  const cardOrder = c => SUIT_ORDER.indexOf(c[1]) * 13 + RANKS.indexOf(c[0]);  // Deal.hand's order

  // Every position of one deal (ply 0 = as dealt), each with the match totals then: frames.positions in Python.
  function decode(deal) {
    let current = Object.assign({}, deal.start, {hands: deal.start.hands.map(h => h.slice())});
    const out = [Object.assign({}, current, {totals: deal.totals.slice()})];
    deal.plies.forEach((delta, i) => {
      const hands = current.hands.map(h => h.slice());
      for (const [seat, cards] of Object.entries(delta.lose || {})) {
        for (const card of cards) hands[Number(seat)].splice(hands[Number(seat)].indexOf(card), 1);
      }
      for (const [seat, cards] of Object.entries(delta.gain || {})) {
        hands[Number(seat)] = hands[Number(seat)].concat(cards).sort((a, b) => cardOrder(a) - cardOrder(b));
      }
      const next = Object.assign({}, current, {hands});
      for (const f of FIELDS) if (f in delta) next[f] = delta[f];
      current = next;
      const last = i === deal.plies.length - 1 && deal.result;
      out.push(Object.assign({}, current, {totals: (last ? deal.result.totals : deal.totals).slice()}));
    });
    return out;
  }
  window.EightsReplay = {decode};  // for the browser tests: the decoder the page uses

  const root = document.getElementById("replay");
  if (!root) return;
  const data = JSON.parse(document.getElementById("replay-data").textContent);
  const start = JSON.parse(document.getElementById("replay-start").textContent);
  const players = data.players, deals = data.deals, cache = new Map();
  const $ = id => document.getElementById(id);
  let dealNo = start.deal, ply = start.ply, eye = null, timer = null;

  const name = seat => players[seat] ? players[seat].name : tr(gettext("seat %(seat)s"), {seat});
  const cardsWords = n => tr(ngettext("%(count)s card", "%(count)s cards", n), {count: n});

  // A card as the table draws it (table.js): rank as text, suit as a shape, its name in words for a screen reader.
  function cardEl(code, extra) {
    const el = h("span", {className: `card suit-${code[1]} ${SUITS[code[1]][2]}` + (extra ? " " + extra : "")},
      ...face(code), h("span", {className: "sr-only"}, cardWords(code)));
    el.dataset.card = code;
    return el;
  }

  function positionsOf(number) {
    if (!cache.has(number)) cache.set(number, decode(deals[number - 1]));
    return cache.get(number);
  }

  // What a ply did, in words; a draw names its card only when the viewer may see it (face up, or that seat's eye).
  function entryWords(entry, delta) {
    const who = name(entry.seat), seen = eye === null || eye === entry.seat;
    const gained = (delta && delta.gain && delta.gain[String(entry.seat)]) || [];
    switch (entry.type) {
      case "draw":
        if (entry.penalty) return logWords(entry, who) + (seen && gained.length ? ` (${gained.map(cardWords).join(", ")})` : "");
        return seen && gained.length === 1 ? tr(gettext("%(who)s drew the %(card)s"), {who, card: cardWords(gained[0])})
          : logWords(entry, who);
      default: return logWords(entry, who);
    }
  }
  const plyWords = delta => delta.log.map(e => entryWords(e, delta)).join(". ");

  function showSeats(pos, delta) {
    const deal = deals[dealNo - 1];
    $("seats").replaceChildren(...players.map(p => {
      const s = p.seat, cards = pos.hands[s], faceUp = eye === null || eye === s, toPlay = pos.to_play === s;
      const gained = new Set((delta && delta.gain && delta.gain[String(s)]) || []);
      const head = h("div", {className: "seat-head"}, h("strong", {}, p.name), " ",
        h("span", {className: `badge ${p.badge}`}, p.label), " ",
        h("span", {className: "small"}, tr(gettext("seat %(seat)s"), {seat: s}) + " · " + cardsWords(cards.length) + " · " +
          tr(gettext("total %(total)s"), {total: pos.totals[s]})),
        deal.dealer === s ? h("span", {className: "muted small"}, " · " + gettext("dealer")) : null,
        pos.out[s] ? h("span", {className: "badge"}, " " + gettext("out")) : null,
        toPlay ? h("span", {className: "small to-play-mark"}, " ▶ " + gettext("to play")) : null,
        eye === s ? h("span", {className: "badge eye-badge"}, gettext("seat's eye")) : null);
      const hand = faceUp
        ? h("div", {className: "hand", "aria-label": tr(gettext("%(name)s's hand"), {name: p.name}), role: "group"},
            ...cards.map(c => cardEl(c, gained.has(c) ? "new-card" : "")),
            cards.length ? null : h("span", {className: "muted small"}, gettext("no cards")))
        : h("div", {className: "hand hidden-hand", "aria-label": tr(gettext("%(name)s's hand, face down: %(cards)s"), {name: p.name, cards: cardsWords(cards.length)}), role: "group"},
            ...cards.map(() => h("span", {className: "card card-back", "aria-hidden": "true"})));
      const box = h("section", {className: "seat" + (toPlay ? " to-play" : "") + (delta && delta.seat === s ? " acted" : ""),
        "aria-label": tr(gettext("seat %(seat)s: %(name)s"), {seat: s, name: p.name})}, head, hand);
      box.dataset.seat = String(s);
      return box;
    }));
  }

  function showCentre(pos) {
    $("top").replaceChildren(...(pos.top ? [cardEl(pos.top, "big-card")] : []));
    if (pos.suit) {
      const [sym, word, colour] = SUITS[pos.suit];
      $("suit").replaceChildren(h("span", {className: `suit-shape ${colour}`, "aria-hidden": "true"}, sym), " ",
        h("span", {className: "suit-name"}, word), ...(pos.declared ? [" ", h("span", {className: "badge"}, gettext("declared"))] : []));
    } else $("suit").textContent = gettext("any card leads");
    $("stock").textContent = pos.stock;
    $("discard").textContent = pos.discard;
    $("deal-facts").textContent = tr(gettext("deal %(deal)s of %(deals)s · ply %(ply)s of %(plies)s"),
      {deal: dealNo, deals: deals.length, ply, plies: deals[dealNo - 1].plies.length});
    const extras = [];
    if (pos.pending) extras.push(tr(ngettext("%(count)s card of draw penalty waiting", "%(count)s cards of draw penalty waiting", pos.pending), {count: pos.pending}));
    if (pos.direction === -1) extras.push(gettext("play goes anticlockwise"));
    if (pos.awaiting) extras.push(tr(gettext("the dealer (%(name)s) must declare a suit"), {name: name(deals[dealNo - 1].dealer)}));
    $("extras").textContent = extras.join(" · ");
  }

  // The match's analysis (#replay-analysis, games.match_pages.replay_analysis), when it has one: at each decision the
  // action the expert prefers from the seat's information and the points the chosen one gave up on average.
  const analysisBlock = $("replay-analysis");
  let analysis = analysisBlock ? JSON.parse(analysisBlock.textContent) : null;

  // An opened record's analysis on request (games.local_replay): #analysis-status names the URL to ask until a worker
  // has done it, then its notes join the plies as a match's do, with the points each seat gave up in all.
  const analysisStatus = $("analysis-status");
  function pollAnalysis() {
    fetch(analysisStatus.dataset.url, {credentials: "same-origin", headers: {Accept: "application/json"}})
      .then(r => r.json().then(body => ({status: r.status, body})))
      .then(({status, body}) => {
        if (body.status === "done") {
          analysis = body.analysis;
          const lines = body.given_up.map((points, seat) => tr(gettext("%(name)s: %(points)s points given up"),
            {name: name(seat), points: points.toFixed(1)}));
          analysisStatus.replaceChildren(h("strong", {}, gettext("Analysis done:") + " "), lines.join(" · ") + ". ",
            gettext("Each decision's note is beside its ply."));
          render(false);
        } else if (status === 503 || body.status === "queued" || body.status === "running") {
          if (body.status === "running") analysisStatus.textContent = tr(gettext("Analysing: %(done)s of %(total)s deals done."), {done: body.deals_done, total: body.deals_total});
          setTimeout(pollAnalysis, status === 503 ? 5000 : 2000);
        } else {
          analysisStatus.textContent = body.detail || gettext("The analysis did not finish: open the record again to ask for another.");
        }
      })
      .catch(() => setTimeout(pollAnalysis, 5000));
  }
  if (analysisStatus && analysisStatus.dataset.url) pollAnalysis();

  function analysisNote(delta) {
    const deal = analysis && analysis[String(dealNo)];
    const found = deal && deal.decisions[String(ply - 1)];
    if (!found) return null;
    const who = name(found.seat);
    const words = found.agrees
      ? tr(ngettext("The expert agrees (one of %(count)s choices).", "The expert agrees (one of %(count)s choices).", found.options), {count: found.options})
      : tr(gettext("The expert would rather: %(action)s. Points given up on average: %(loss)s."),
        {action: logWords(found.best, who), loss: found.loss.toFixed(1)});
    return h("p", {className: "analysis-note small"}, h("strong", {}, gettext("Analysis:") + " "), words);
  }

  function showDetail(delta) {
    const box = $("ply-detail");
    if (!delta) {
      const d = deals[dealNo - 1];
      box.replaceChildren(h("strong", {}, tr(gettext("Deal %(number)s, as dealt."), {number: dealNo})), " " +
        tr(gettext("%(name)s dealt;"), {name: name(d.dealer)}) + " " +
        (d.start.to_play === null ? "" : tr(gettext("%(name)s plays first."), {name: name(d.start.to_play)})));
      return;
    }
    const parts = [h("strong", {}, tr(gettext("Ply %(ply)s:"), {ply}) + " "), plyWords(delta) + "."];
    if (delta.ms !== undefined) parts.push(" ", h("span", {className: "muted small"}, tr(gettext("Thought for %(ms)s ms."), {ms: delta.ms})));
    box.replaceChildren(...parts);
    const note = analysisNote(delta);
    if (note) box.append(note);
    if (delta.log.some(e => e.type === "reshuffle")) box.append(h("p", {className: "reshuffle-note"}, gettext("Reshuffle:") + " " +
      entryWords(delta.log.find(e => e.type === "reshuffle"), delta) + "."));
    if (delta.fault) box.append(h("p", {className: "fault-note"}, h("strong", {}, tr(gettext("Fault (%(kind)s):"), {kind: delta.fault.kind}) + " "),
      delta.fault.detail || gettext("no details"), " " + tr(gettext("The referee played the fallback for %(name)s: %(ply)s."), {name: name(delta.seat), ply: plyWords(delta)})));
  }

  // "What my bot saw here" (bots_api's turn log, its owner only): #replay-seat-tools lists the viewer's own bots'
  // seats with their turn log URL (the server decides who gets it, and the URL checks again). At such a seat's ply the
  // request it was sent, its reply and its debug note are fetched and shown, as text only.
  const toolsBlock = $("replay-seat-tools");
  const seatTools = toolsBlock ? JSON.parse(toolsBlock.textContent) : [];
  function showMyBot(delta) {
    const panel = $("my-bot-turn");
    if (!panel) return;
    const tool = delta ? seatTools.find(t => t.seat === delta.seat) : null;
    panel.hidden = !tool;
    if (!tool) { panel.replaceChildren(); return; }
    const query = `match=${encodeURIComponent(root.dataset.match)}&deal=${dealNo}&ply=${ply - 1}`;
    const button = h("button", {type: "button", className: "link", id: "my-bot-open"}, tool.label);
    panel.replaceChildren(button, " ", h("a", {href: `${tool.page}?${query}`, className: "muted"}, gettext("(in the turn log)")));
    button.addEventListener("click", () => {
      const shownAt = `${dealNo}/${ply}`;
      button.disabled = true;
      fetch(`${tool.url}?${query}`, {credentials: "same-origin", headers: {Accept: "application/json"}})
        .then(r => r.ok ? r.json() : Promise.reject(new Error(`HTTP ${r.status}`)))
        .then(page => {
          if (`${dealNo}/${ply}` !== shownAt) return;  // the viewer moved on meanwhile
          const turn = page.results.find(t => t.played) || page.results[0];
          if (!turn) {
            panel.replaceChildren(h("p", {}, gettext("No turn is logged here: turn logs are kept for a limited time (see the turn log page).")));
            return;
          }
          panel.replaceChildren(...[
            h("p", {}, h("strong", {}, tool.label + ": "), `${turn.latency_ms} ms` + (turn.status ? `, HTTP ${turn.status}` : ", " + gettext("no answer")) +
              (turn.fault_kind ? "; " + tr(gettext("fault %(kind)s: %(detail)s"), {kind: turn.fault_kind, detail: turn.fault}) : "")),
            turn.debug ? h("p", {id: "my-bot-debug"}, h("strong", {}, "debug: "), turn.debug) : null,
            turn.debug_warning ? h("p", {className: "muted"}, gettext("warning:") + " " + turn.debug_warning) : null,
            h("details", {open: true}, h("summary", {}, gettext("Request (what your bot was sent)")), h("pre", {id: "my-bot-request"}, JSON.stringify(turn.request, null, 1))),
            h("details", {}, h("summary", {}, gettext("Reply")), h("pre", {}, typeof turn.reply === "string" ? turn.reply : JSON.stringify(turn.reply, null, 1)))]
            .filter(c => c !== null));  // replaceChildren would print a null as the text "null"
        })
        .catch(err => { panel.append(h("p", {className: "fault-note"}, tr(gettext("Could not load the turn log (%(error)s)."), {error: err.message}))); button.disabled = false; });
    });
  }

  function showResult(pos) {
    const d = deals[dealNo - 1], box = $("result"), end = ply === d.plies.length;
    const cutOff = end && !d.result && dealNo === deals.length;
    box.hidden = !(end && (d.result || cutOff));
    if (box.hidden) return;
    if (!d.result) {
      const f = data.result.forfeited;
      box.replaceChildren(h("strong", {}, gettext("The match ended here:") + " "), f === null || f === undefined
        ? gettext("the deal was cut off.") : tr(gettext("%(name)s forfeited (too many faults in a row)."), {name: name(f)}));
      return;
    }
    const r = d.result;
    box.replaceChildren(h("h3", {}, r.outcome === "out" ? tr(gettext("Deal %(number)s: %(name)s went out"), {number: dealNo, name: name(r.winner)})
      : tr(gettext("Deal %(number)s: blocked"), {number: dealNo})),
      ...players.map(p => h("p", {}, h("strong", {}, p.name), ": " + tr(ngettext("%(count)s card left worth %(worth)s; this deal adds %(points)s, total %(total)s.",
        "%(count)s cards left worth %(worth)s; this deal adds %(points)s, total %(total)s.", pos.hands[p.seat].length),
        {count: pos.hands[p.seat].length, worth: r.hand_values[p.seat], points: r.points[p.seat], total: r.totals[p.seat]}))),
      dealNo === deals.length ? h("p", {}, h("strong", {}, gettext("Match over.") + " "), tr(gettext("Places: %(places)s."),
        {places: players.map(p => `${p.name} ${p.place ?? "-"}`).join(" · ")})) : null);
  }

  function showLog() {
    const d = deals[dealNo - 1], hadFocus = $("log").contains(document.activeElement);
    $("log").replaceChildren(...d.plies.slice(0, ply).map((delta, i) => {
      const item = h("li", {className: (delta.log.some(e => e.type === "reshuffle") ? "log-reshuffle" : "") + (delta.fault ? " log-fault" : "")},
        h("button", {type: "button", className: "link ply-link"}, `${i + 1}. ${plyWords(delta)}` +
          (delta.fault ? " " + tr(gettext("(fallback after a %(kind)s fault)"), {kind: delta.fault.kind}) : "")));
      if (i + 1 === ply) item.setAttribute("aria-current", "step");
      item.firstChild.addEventListener("click", () => go(dealNo, i + 1));
      return item;
    }));
    const log = $("log");
    log.scrollTop = log.scrollHeight;
    if (hadFocus) (log.querySelector('[aria-current="step"] button') || $("next")).focus();  // the list was rebuilt
  }

  function render(announce) {
    const d = deals[dealNo - 1], pos = positionsOf(dealNo)[ply], delta = ply ? d.plies[ply - 1] : null;
    root.dataset.deal = String(dealNo);
    root.dataset.ply = String(ply);
    root.dataset.eye = eye === null ? "" : String(eye);
    showCentre(pos);
    showSeats(pos, delta);
    showDetail(delta);
    showMyBot(delta);
    showResult(pos);
    showLog();
    $("deal-choice").value = String(dealNo);
    $("ply-choice").max = $("ply-slider").max = String(d.plies.length);
    $("ply-choice").value = $("ply-slider").value = String(ply);
    $("prev").disabled = dealNo === 1 && ply === 0;
    $("next").disabled = dealNo === deals.length && ply === d.plies.length;
    $("prev-deal").disabled = dealNo === 1;
    $("next-deal").disabled = dealNo === deals.length;
    if (announce !== false && !timer) {  // while playing, the live region waits for the pause (no flood of plies)
      $("where").textContent = (delta ? tr(gettext("Deal %(number)s, ply %(ply)s of %(plies)s: %(words)s."), {number: dealNo, ply, plies: d.plies.length, words: plyWords(delta)})
        : tr(gettext("Deal %(number)s, ply %(ply)s of %(plies)s: as dealt."), {number: dealNo, ply, plies: d.plies.length})) +
        (delta && delta.fault ? " " + tr(gettext("Fault (%(kind)s), fallback played."), {kind: delta.fault.kind}) : "");
    }
    const url = new URL(window.location.href);
    url.searchParams.set("deal", String(dealNo));
    url.searchParams.set("ply", String(ply));
    history.replaceState(null, "", url.pathname + url.search + url.hash);
  }

  function go(number, at) {
    dealNo = Math.min(Math.max(1, number), deals.length);
    ply = Math.min(Math.max(0, at), deals[dealNo - 1].plies.length);
    render();
  }
  function next() {
    if (ply < deals[dealNo - 1].plies.length) go(dealNo, ply + 1);
    else if (dealNo < deals.length) go(dealNo + 1, 0);
    else { pause(); return false; }
    return true;
  }
  function prev() {
    if (ply > 0) go(dealNo, ply - 1);
    else if (dealNo > 1) go(dealNo - 1, deals[dealNo - 2].plies.length);
  }
  function speed() { return Number($("speed").value) || 2; }
  function play() {
    if (timer) return;
    if (dealNo === deals.length && ply === deals[dealNo - 1].plies.length) go(1, 0);  // from the start again
    timer = setInterval(() => { next(); }, 1000 / speed());
    $("where").textContent = tr(gettext("Playing at %(speed)s; Space pauses."), {speed: $("speed").selectedOptions[0].text});
    $("play").textContent = gettext("Pause");
    $("play").setAttribute("aria-pressed", "true");
  }
  function pause() {
    const wasPlaying = timer !== null;
    clearInterval(timer);
    timer = null;
    $("play").textContent = gettext("Play");
    $("play").setAttribute("aria-pressed", "false");
    if (wasPlaying) render();  // says where the play stopped
  }
  function toggle() { if (timer) pause(); else play(); }
  function setSpeed(step) {
    const select = $("speed"), i = Math.min(Math.max(0, select.selectedIndex + step), select.options.length - 1);
    select.selectedIndex = i;
    speedChanged();
    if (!timer) $("where").textContent = tr(gettext("Speed: %(speed)s."), {speed: select.options[i].text});
  }
  function speedChanged() { if (timer) { pause(); play(); } }
  function setEye(value) {
    eye = value === "" || value === null ? null : Number(value);
    $("eye").value = eye === null ? "" : String(eye);
    render(false);
    $("where").textContent = eye === null ? gettext("All hands face up.") : tr(gettext("Seat's eye: the deal as %(name)s saw it."), {name: name(eye)});
  }

  $("deal-choice").replaceChildren(...deals.map(d => h("option", {value: String(d.number)},
    tr(gettext("Deal %(number)s"), {number: d.number}) + " (" + tr(ngettext("%(count)s ply", "%(count)s plies", d.plies.length), {count: d.plies.length}) +
      (d.result ? (d.result.outcome === "out" ? ", " + tr(gettext("%(name)s went out"), {name: name(d.result.winner)}) + ")"
        : ", " + gettext("blocked") + ")") : ", " + gettext("cut off") + ")"))));
  $("prev").addEventListener("click", prev);
  $("next").addEventListener("click", () => next());
  $("play").addEventListener("click", toggle);
  $("deal-start").addEventListener("click", () => go(dealNo, 0));
  $("deal-end").addEventListener("click", () => go(dealNo, deals[dealNo - 1].plies.length));
  $("prev-deal").addEventListener("click", () => go(dealNo - 1, 0));
  $("next-deal").addEventListener("click", () => go(dealNo + 1, 0));
  $("deal-choice").addEventListener("change", e => go(Number(e.target.value), 0));
  $("ply-choice").addEventListener("change", e => go(dealNo, Number(e.target.value) || 0));
  $("ply-slider").addEventListener("input", e => go(dealNo, Number(e.target.value) || 0));
  $("speed").addEventListener("change", speedChanged);
  $("eye").addEventListener("change", e => setEye(e.target.value));
  document.addEventListener("keydown", e => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = e.target.tagName, field = tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA";
    if (field && e.key !== "Escape") return;  // a field's own keys (arrows in a select, digits in the ply box)
    const actions = {
      ArrowRight: () => next(), ArrowLeft: prev, Home: () => go(dealNo, 0),
      End: () => go(dealNo, deals[dealNo - 1].plies.length), "[": () => go(dealNo - 1, 0), "]": () => go(dealNo + 1, 0),
      "+": () => setSpeed(1), "=": () => setSpeed(1), "-": () => setSpeed(-1),
      v: () => setEye(eye === null ? 0 : eye + 1 < players.length ? eye + 1 : null),
      V: () => setEye(eye === null ? 0 : eye + 1 < players.length ? eye + 1 : null),
      Escape: pause,
    };
    if (e.key === " " && !(tag === "BUTTON" || tag === "A" || tag === "SUMMARY")) actions[" "] = toggle;  // a focused button's own Space clicks it
    const act = actions[e.key];
    if (!act) return;
    e.preventDefault();
    if (e.key !== " " && e.key !== "Escape" && !["+", "=", "-", "v", "V"].includes(e.key)) pause();  // stepping by hand stops the play
    act();
  });
  $("loading").hidden = true;
  render();
})();
