// Shared by the table, the watch page and the replay (loaded before each of them): the card names and `h()`, which
// builds elements from props and children. Strings always become text nodes, never HTML: every piece of text from a
// user (seat names, owners, bot names) reaches a page this way, and the Content-Security-Policy refuses inline
// script as a second guard.
//
// Words come from Django's JavaScript catalogue (/jsi18n/, loaded by base.html before every script): gettext,
// ngettext, pgettext and interpolate; `tr(text, {name: value})` fills a translated text's %(name)s places. A page
// without the catalogue reads English.
if (typeof window.gettext !== "function") {
  window.gettext = s => s;
  window.ngettext = (one, many, n) => (n === 1 ? one : many);
  window.pgettext = (context, s) => s;
  window.interpolate = (fmt, obj) => fmt.replace(/%\((\w+)\)s/g, (_, k) => String(obj[k]));
}
(function () {
  "use strict";
  const SUITS = {C: ["♣", gettext("clubs"), "black"], D: ["♦", gettext("diamonds"), "red"],
                 H: ["♥", gettext("hearts"), "red"], S: ["♠", gettext("spades"), "black"]};
  // a card's suit in its name ("ace of spades"): a form of its own where a language wants one (Russian: "туз пик")
  const OF_SUIT = {C: pgettext("a card's name: ace of ...", "clubs"), D: pgettext("a card's name: ace of ...", "diamonds"),
                   H: pgettext("a card's name: ace of ...", "hearts"), S: pgettext("a card's name: ace of ...", "spades")};
  const RANKS = {A: gettext("ace"), T: "10", J: gettext("jack"), Q: gettext("queen"), K: gettext("king"), "8": gettext("eight")};
  const tr = (text, args) => interpolate(text, args, true);
  // h("strong", {className: "x"}, "text", child, ...): an element; aria-*, data-* and role are attributes, the other
  // props are properties; null, undefined and false children are left out.
  function h(tag, props, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (k.startsWith("aria-") || k.startsWith("data-") || k === "role") el.setAttribute(k, v); else el[k] = v;
    }
    el.append(...children.filter(c => c !== null && c !== undefined && c !== false)
      .map(c => typeof c === "string" || typeof c === "number" ? String(c) : c));
    return el;
  }
  const rankText = c => c[0] === "T" ? "10" : c[0];  // a card code's rank as printed on the card
  // "ace of spades", for screen readers and the table's words
  const cardWords = c => tr(gettext("%(rank)s of %(suit)s"), {rank: RANKS[c[0]] || c[0], suit: OF_SUIT[c[1]]});
  // A card's face, drawn by us (static/css/table.css, "Card faces"): the index in the top corner (the rank as real
  // text, which scales with the page's text size, over the suit's shape) and again upside down in the bottom
  // corner, the suit's shape large in the middle (an ace's larger still), a court card's letter in a frame, and a
  // ring round an eight's centre (it is wild). Hidden from screen readers: the card's name in words says it all.
  function face(code) {
    const sym = SUITS[code[1]][0], rank = rankText(code);
    const centre = "JQK".includes(code[0])
      ? h("span", {className: "court"}, h("span", {className: "court-letter"}, rank), h("span", {className: "court-suit"}, sym))
      : h("span", {className: "pip" + (code[0] === "A" ? " pip-ace" : code[0] === "8" ? " pip-eight" : "")}, sym);
    return [h("span", {className: "index", "aria-hidden": "true"}, h("span", {className: "rank"}, rank),
              h("span", {className: "suit"}, sym)),
            h("span", {className: "centre-face", "aria-hidden": "true"}, centre),
            h("span", {className: "index index-low", "aria-hidden": "true"}, h("span", {}, rank), h("span", {}, sym))];
  }
  // Face-down cards for a hand nobody may see: ``count`` small backs fanned (at most ``most`` drawn), hidden from
  // screen readers (the seat says the count in words).
  function backs(count, most = 12) {
    const fan = h("span", {className: "back-fan", "aria-hidden": "true"});
    for (let i = 0; i < Math.min(count, most); i++) fan.append(h("span", {className: "mini-back"}));
    return fan;
  }
  // The reshuffle in words: the table's log line and its notice say the same (seeing the cards go back is the only
  // proof a player has that the cards played earlier are in the stock again).
  function reshuffleWords(count) {
    return tr(ngettext("The stock ran out: %(count)s card from the discard pile was shuffled into a new stock (the top card stays)",
      "The stock ran out: %(count)s cards from the discard pile were shuffled into a new stock (the top card stays)", count), {count});
  }
  // One entry of a deal's public history (a ply's log: the ply, any penalty or reshuffle it caused) in words, for the
  // table, the watch page and the replay; `who`: the seat's name.
  function logWords(entry, who) {
    const suit = entry.suit && SUITS[entry.suit] ? SUITS[entry.suit][1] : entry.suit;
    switch (entry.type) {
      case "play": return entry.suit ? tr(gettext("%(who)s played the %(card)s and declared %(suit)s"), {who, card: cardWords(entry.card), suit})
        : tr(gettext("%(who)s played the %(card)s"), {who, card: cardWords(entry.card)});
      case "draw": return entry.penalty ? tr(ngettext("%(who)s took %(count)s penalty card", "%(who)s took %(count)s penalty cards", entry.count), {who, count: entry.count})
        : tr(gettext("%(who)s drew a card"), {who});
      case "declare": return tr(gettext("%(who)s declared %(suit)s"), {who, suit});
      case "penalty": return tr(ngettext("%(who)s drew %(count)s penalty card", "%(who)s drew %(count)s penalty cards", entry.count), {who, count: entry.count});
      case "reshuffle": return reshuffleWords(entry.count) + " " + tr(gettext("(%(who)s was to draw)"), {who});
      case "pass": return tr(gettext("%(who)s passed"), {who});
      case "announce": return tr(gettext("%(who)s announced a last card"), {who});
      default: return `${who}: ${entry.type}`;
    }
  }
  window.EightsCards = Object.freeze({SUITS, RANKS, h, rankText, cardWords, face, backs, tr, logWords, reshuffleWords});
})();
