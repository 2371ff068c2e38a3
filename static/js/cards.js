// Shared by the table, the watch page and the replay (loaded before each of them): the card names and `h()`, which
// builds elements from props and children. Strings always become text nodes, never HTML: every piece of text from a
// user (seat names, owners, bot names) reaches a page this way, and the Content-Security-Policy refuses inline
// script as a second guard.
(function () {
  "use strict";
  const SUITS = {C: ["♣", "clubs", "black"], D: ["♦", "diamonds", "red"], H: ["♥", "hearts", "red"], S: ["♠", "spades", "black"]};
  const RANKS = {A: "ace", T: "10", J: "jack", Q: "queen", K: "king", "8": "eight"};
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
  window.EightsCards = Object.freeze({
    SUITS, RANKS, h,
    rankText: c => c[0] === "T" ? "10" : c[0],  // a card code's rank as printed on the card
    cardWords: c => `${RANKS[c[0]] || c[0]} of ${SUITS[c[1]][1]}`,  // "ace of spades", for screen readers
  });
})();
