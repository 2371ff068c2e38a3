/* The compiled fast path of the engine (eights_engine.fast): one deal's state in a C struct, the rules of
 * legality.py and effects.py written again over it, and random playouts run to the deal's end without returning
 * to Python. The pure Python engine stays the reference: engine/tests/test_fast.py plays every golden playthrough
 * and random matches of every preset through both, ply for ply, and compares the whole state after each ply.
 *
 * What it keeps of a deal is exactly what those rules read (deal.py's slots without the history): hands as two
 * 52-bit masks per seat (hands.py), the stock (top last) and the discard pile (top last) as card arrays, and the
 * turn's counters. Action ids are the engine's (actions.py). A deal's end is reported as (outcome, winner, hand
 * values); its points come from scoring.deal_points in Python, the one place scoring lives.
 *
 * Randomness: a reshuffle of the discard pile is the engine's own (rng.shuffler(seed, k)): for an int seed
 * (engine version 1, or a determinized deal) SplitMix64 Fisher-Yates, written here; for a 32-byte key (version 2)
 * the Python callable given at construction does it (rare: once in dozens of plies). Playouts choose with
 * SplitMix64(seed, 0).below(n), as eights_engine.fast's pure fallback does, so both give the same playout.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_SEATS 8
#define MAX_CARDS 104
#define MAX_LEGAL 80
#define DRAW 68
#define PASS 69
#define DECLARE 70
#define ANNOUNCE 74
#define EIGHT 7
#define TWO 1
#define STARTER_TURNS 10000

enum { AFTER_ANY = 0, AFTER_DRAWN = 1, AFTER_NONE = 2 };
enum { FX_NONE = 0, FX_TWOS_STACK = 1, FX_TWOS_WINDING = 2, FX_QUEEN = 3, FX_SKIP = 4, FX_REVERSE = 5 };
enum { ST_DEALER_DECLARES = 0, ST_RESHUFFLE = 1, ST_BURY = 2, ST_OWN_SUIT = 3 };

static const uint64_t GOLDEN = 0x9E3779B97F4A7C15ULL;
static uint64_t SUIT_MASK[4], RANK_MASK[13], EIGHTS, TWOS;
static const uint64_t ALL_MASK = (1ULL << 52) - 1;

typedef struct {
    int declares, eights_match_suit, go_out_on_eight, after_draw, cards_a_turn;
    int refuse_first_holding, refuse_later_holding, stock_out_ends_turn, may_keep_drawn_card, reshuffle;
    int turn_ends_when_stuck, twos_stack, queen_draw, effects_on_going_out, reverse_skips, last_card;
    int partnership, simple_turns, ply_limit, starter;
    unsigned char effects[52];
    int values[52];
    int deck[MAX_CARDS], ndeck, per_hand;  /* what a deal at these seats is dealt from (start, redeal) */
} Opts;

typedef struct {
    int seats;
    uint64_t masks[MAX_SEATS], dups[MAX_SEATS];
    int sizes[MAX_SEATS];
    char out[MAX_SEATS];
    int stock[MAX_CARDS], nstock, discard[MAX_CARDS], ndiscard;
    int to_play, declared, drawn, last_drawn, pending, pending_from_twos, twos_run, direction;
    int awaiting, announced, passes, reshuffles, ply, step, leader, dealer;
    int over, outcome, winner;  /* outcome: 0 out, 1 blocked */
    int hand_values[MAX_SEATS];
    int int_seed;  /* 1: seed is an int (SplitMix64 reshuffles here); 0: a key (reshuffles by the callable) */
    uint64_t seed;
} Deal;

typedef struct {
    PyObject_HEAD
    Opts opts;
    Deal d;
    PyObject *reshuffler;  /* callable(k, cards) -> shuffled cards, for a key's reshuffles; or None */
    int error;  /* a Python error was raised inside a rule step (the callable failed) */
} FastDeal;

/* ---- SplitMix64 (rng.py) --------------------------------------------------------------------------------- */
static inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static inline uint64_t sm_start(uint64_t seed, uint64_t purpose) { return mix64(seed * 0x100000001B3ULL + purpose); }
static inline uint64_t sm_next(uint64_t *state) { *state += GOLDEN; return mix64(*state); }
static inline uint64_t sm_below(uint64_t *state, uint64_t bound) {
    uint64_t rem = (0 - bound) % bound;  /* 2**64 % bound */
    for (;;) {
        uint64_t x = sm_next(state);
        if (rem == 0 || x < 0 - rem) return x % bound;  /* limit = 2**64 - rem */
    }
}
static void sm_shuffle(uint64_t *state, int *items, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = (int)sm_below(state, (uint64_t)i + 1);
        int t = items[i]; items[i] = items[j]; items[j] = t;
    }
}

/* ---- hands ----------------------------------------------------------------------------------------------- */
static inline void add_card(Deal *d, int seat, int card) {
    uint64_t bit = 1ULL << card;
    if (d->masks[seat] & bit) d->dups[seat] |= bit; else d->masks[seat] |= bit;
    d->sizes[seat]++;
}
static inline int seats_in_play(const Deal *d) {
    int n = d->seats;
    for (int s = 0; s < d->seats; s++) n -= d->out[s];
    return n;
}
static inline int wrap(int seat, int n) { seat %= n; return seat < 0 ? seat + n : seat; }

/* ---- legality.py ----------------------------------------------------------------------------------------- */
static uint64_t fits_mask(const FastDeal *f) {
    const Deal *d = &f->d;
    if (!d->ndiscard) return ALL_MASK;
    int top = d->discard[d->ndiscard - 1];
    int suit = d->declared >= 0 ? d->declared : top / 13;
    uint64_t fits = SUIT_MASK[suit] | RANK_MASK[top % 13];
    if (f->opts.eights_match_suit && top % 13 != EIGHT) return fits;
    return fits | EIGHTS;
}
static uint64_t playable_mask(const FastDeal *f) {
    const Deal *d = &f->d;
    int seat = d->to_play;
    uint64_t hand = d->masks[seat];
    if (d->pending) return d->pending_from_twos && f->opts.twos_stack ? hand & TWOS : 0;
    if (d->drawn) {
        if (f->opts.after_draw == AFTER_NONE) hand = 0;
        else if (f->opts.after_draw == AFTER_DRAWN)
            hand = d->last_drawn >= 0 && (hand >> d->last_drawn & 1) ? 1ULL << d->last_drawn : 0;
    }
    uint64_t mask = hand & fits_mask(f);
    if (!f->opts.go_out_on_eight && d->sizes[seat] == 1) mask &= ~EIGHTS;
    return mask;
}
static int play_ids(uint64_t playable, int declares, int *out) {
    int n = 0;
    while (playable) {
        int card = __builtin_ctzll(playable);
        playable &= playable - 1;
        if (declares && card % 13 == EIGHT) {
            for (int s = 0; s < 4; s++) out[n++] = 52 + 4 * (card / 13) + s;
        } else out[n++] = card;
    }
    return n;
}
static int legal_ids(const FastDeal *f, int *out) {
    const Deal *d = &f->d;
    const Opts *o = &f->opts;
    if (d->over) return 0;
    if (d->awaiting) { for (int s = 0; s < 4; s++) out[s] = DECLARE + s; return 4; }
    uint64_t playable = playable_mask(f);
    int n = playable ? play_ids(playable, o->declares, out) : 0;
    int announce = o->last_card && playable && !d->announced && d->sizes[d->to_play] == 2;
    if (d->pending) {
        out[n++] = DRAW;
        if (announce) out[n++] = ANNOUNCE;
        return n;
    }
    int why;  /* a reason not to draw now (legality.legal_ids: the draw rule) */
    if (!d->nstock && !(o->reshuffle && d->ndiscard > 1)) why = 1;
    else if (!d->drawn) why = playable && o->refuse_first_holding;
    else if (o->stock_out_ends_turn && !d->nstock) why = 1;
    else if (d->drawn >= o->cards_a_turn) why = 1;
    else why = playable && o->refuse_later_holding;
    if (!why) out[n++] = DRAW;
    if ((why && !playable) || (d->drawn && o->may_keep_drawn_card)) out[n++] = PASS;
    if (announce) out[n++] = ANNOUNCE;
    return n;
}

/* ---- effects.py ------------------------------------------------------------------------------------------ */
static void refill_stock(FastDeal *f) {
    Deal *d = &f->d;
    d->reshuffles++;
    int top = d->discard[d->ndiscard - 1];
    int n = d->ndiscard - 1;
    memcpy(d->stock, d->discard, sizeof(int) * n);
    d->nstock = n;
    d->discard[0] = top;
    d->ndiscard = 1;
    if (d->int_seed) {
        uint64_t state = sm_start(d->seed, (uint64_t)d->reshuffles);
        sm_shuffle(&state, d->stock, n);
        return;
    }
    PyObject *cards = PyList_New(n);
    if (!cards) { f->error = 1; return; }
    for (int i = 0; i < n; i++) PyList_SET_ITEM(cards, i, PyLong_FromLong(d->stock[i]));
    PyObject *shuffled = PyObject_CallFunction(f->reshuffler, "iO", d->reshuffles, cards);
    Py_DECREF(cards);
    if (!shuffled || !PyList_Check(shuffled) || PyList_GET_SIZE(shuffled) != n) {
        if (shuffled && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "the reshuffler must return the list");
        Py_XDECREF(shuffled);
        f->error = 1;
        return;
    }
    for (int i = 0; i < n; i++) d->stock[i] = (int)PyLong_AsLong(PyList_GET_ITEM(shuffled, i));
    Py_DECREF(shuffled);
}
static int draw_cards(FastDeal *f, int seat, int count) {
    Deal *d = &f->d;
    int drawn = 0;
    while (drawn < count) {
        if (!d->nstock) {
            if (!(f->opts.reshuffle && d->ndiscard > 1)) break;
            refill_stock(f);
            if (f->error) return drawn;
        }
        int card = d->stock[--d->nstock];
        add_card(d, seat, card);
        d->last_drawn = card;
        drawn++;
    }
    return drawn;
}
static void advance(Deal *d, int steps) {
    int seat = d->to_play, n = d->seats;
    for (int i = 0; i < steps; i++) {
        seat = wrap(seat + d->direction, n);
        while (d->out[seat]) seat = wrap(seat + d->direction, n);
    }
    d->to_play = seat;
    d->drawn = 0;
    d->last_drawn = -1;
    d->announced = 0;
}
static void finish(FastDeal *f, int outcome, int winner) {
    Deal *d = &f->d;
    for (int s = 0; s < d->seats; s++) {
        int v = 0;
        for (uint64_t m = d->masks[s]; m; m &= m - 1) v += f->opts.values[__builtin_ctzll(m)];
        for (uint64_t m = d->dups[s]; m; m &= m - 1) v += f->opts.values[__builtin_ctzll(m)];
        d->hand_values[s] = v;
    }
    d->over = 1;
    d->outcome = outcome;
    d->winner = winner;
    d->drawn = 0;
    d->last_drawn = -1;
    d->pending = 0;
}
static void card_effect(FastDeal *f, int card) {
    Deal *d = &f->d;
    switch (f->opts.effects[card]) {
    case FX_TWOS_STACK: d->step = 1; d->pending += 2; d->pending_from_twos = 1; break;
    case FX_TWOS_WINDING:
        d->step = 1; d->twos_run = d->twos_run + 1 < 4 ? d->twos_run + 1 : 4;
        d->pending = 2 * d->twos_run; d->pending_from_twos = 1; break;
    case FX_QUEEN: d->step = 1; d->twos_run = 0; d->pending = f->opts.queen_draw; d->pending_from_twos = 0; break;
    case FX_SKIP: d->step = 2; d->twos_run = 0; break;
    case FX_REVERSE:
        d->step = 1; d->twos_run = 0;
        if (seats_in_play(d) == 2) { if (f->opts.reverse_skips) d->step = 2; }
        else d->direction = -d->direction;
        break;
    }
}
static inline int deal_ends_with(const FastDeal *f, int seat) {
    return !f->opts.partnership || f->d.out[(seat + 2) % 4];
}
static void play(FastDeal *f, int seat, int a) {
    Deal *d = &f->d;
    const Opts *o = &f->opts;
    int card = a < 52 ? a : ((a - 52) / 4) * 13 + EIGHT;
    int declared = a < 52 ? -1 : (a - 52) % 4;
    uint64_t bit = 1ULL << card;
    if (d->dups[seat] & bit) d->dups[seat] ^= bit; else d->masks[seat] ^= bit;
    d->sizes[seat]--;
    d->discard[d->ndiscard++] = card;
    d->declared = declared;
    d->passes = 0;
    d->ply++;
    int size = d->sizes[seat];
    if (size == 0) {
        d->out[seat] = 1;
        if (deal_ends_with(f, seat)) {
            if (o->effects_on_going_out && o->effects[card]) {
                card_effect(f, card);
                if (d->pending) {  /* the next seat takes the penalty before the deal is scored */
                    advance(d, d->step);
                    draw_cards(f, d->to_play, d->pending);
                    d->pending = 0;
                }
            }
            finish(f, 0, seat);
            return;
        }
    } else if (size == 1 && o->last_card && !d->announced) {
        draw_cards(f, seat, o->last_card);  /* forgot to announce the last card (C D) */
    }
    if (o->effects[card]) {
        card_effect(f, card);
        advance(d, d->step);
        return;
    }
    d->twos_run = 0;
    if (o->simple_turns) {
        d->to_play = wrap(seat + d->direction, d->seats);
        d->drawn = 0;
        d->last_drawn = -1;
        d->announced = 0;
    } else advance(d, 1);
}
static void draw(FastDeal *f, int seat) {
    Deal *d = &f->d;
    if (d->pending) {
        draw_cards(f, seat, d->pending);
        d->pending = 0;
        d->pending_from_twos = 0;
        d->passes = 0;
        d->ply++;
        advance(d, 1);  /* the victim misses the turn */
        return;
    }
    if (!d->nstock) {
        refill_stock(f);
        if (f->error) return;
    }
    int card = d->stock[--d->nstock];
    add_card(d, seat, card);
    d->last_drawn = card;
    d->drawn++;
    d->passes = 0;
    d->twos_run = 0;
    d->ply++;
    if (f->opts.turn_ends_when_stuck) {
        int ids[MAX_LEGAL];
        if (legal_ids(f, ids) == 1 && ids[0] == PASS) advance(d, 1);
    }
}
static void pass_turn(FastDeal *f) {
    Deal *d = &f->d;
    if (!d->drawn) d->passes++;
    d->twos_run = 0;
    d->ply++;
    if (d->passes >= seats_in_play(d)) finish(f, 1, -1);  /* every seat passed in turn (D) */
    else advance(d, 1);
}
/* One ply: ``a`` must be legal (the caller checks). */
static void apply_legal(FastDeal *f, int a) {
    Deal *d = &f->d;
    int seat = d->to_play;
    if (a < DRAW) play(f, seat, a);
    else if (a == DRAW) draw(f, seat);
    else if (a == PASS) pass_turn(f);
    else if (a < ANNOUNCE) { d->awaiting = 0; d->declared = a - DECLARE; d->to_play = d->leader; d->ply++; }
    else { d->announced = 1; d->ply++; }
    if (d->ply >= f->opts.ply_limit && !d->over) finish(f, 1, -1);  /* the service's safeguard (RULES.md) */
}

/* ---- dealing (Deal.start for an int seed) ---------------------------------------------------------------- */
static void turn_until_not_an_eight(Deal *d, int start, int bury, uint64_t *rng) {
    int i;
    for (i = start; i < d->nstock; i++) if (d->stock[i] % 13 != EIGHT) break;
    if (i >= d->nstock) { d->discard[d->ndiscard++] = d->stock[--d->nstock]; return; }
    for (int turn = 0; turn < STARTER_TURNS; turn++) {
        int card = d->stock[--d->nstock];
        if (card % 13 != EIGHT) { d->discard[d->ndiscard++] = card; return; }
        if (bury) {  /* stock.insert(len(stock) // 2, card) */
            int at = d->nstock / 2;
            memmove(&d->stock[at + 1], &d->stock[at], sizeof(int) * (d->nstock - at));
            d->stock[at] = card;
            d->nstock++;
        } else {
            d->stock[d->nstock++] = card;
            sm_shuffle(rng, d->stock, d->nstock);
        }
    }
    d->discard[d->ndiscard++] = d->stock[--d->nstock];
}
static void deal_start(FastDeal *f, const int *deck, int ndeck, int per_hand, uint64_t seed, int dealer, int leader) {
    Deal *d = &f->d;
    int seats = d->seats;
    memcpy(d->stock, deck, sizeof(int) * ndeck);
    d->nstock = ndeck;
    uint64_t rng = sm_start(seed, 0);
    sm_shuffle(&rng, d->stock, ndeck);
    if (per_hand < 0) {
        int seat = (dealer + 1) % seats;
        while (d->nstock) { add_card(d, seat, d->stock[--d->nstock]); seat = (seat + 1) % seats; }
    } else {
        for (int k = 0; k < per_hand; k++)
            for (int i = 1; i <= seats; i++) add_card(d, (dealer + i) % seats, d->stock[--d->nstock]);
    }
    d->to_play = d->leader = leader < 0 ? (dealer + 1) % seats : leader;
    if (per_hand < 0) return;
    switch (f->opts.starter) {
    case ST_DEALER_DECLARES: {
        int card = d->stock[--d->nstock];
        d->discard[d->ndiscard++] = card;
        if (card % 13 == EIGHT) { d->awaiting = 1; d->to_play = dealer; }
        break;
    }
    case ST_OWN_SUIT: d->discard[d->ndiscard++] = d->stock[--d->nstock]; break;
    case ST_RESHUFFLE: turn_until_not_an_eight(d, 0, 0, &rng); break;
    case ST_BURY: turn_until_not_an_eight(d, (d->nstock - 1) / 2, 1, &rng); break;
    }
}

/* ---- the Python type --------------------------------------------------------------------------------------- */
static int read_ints(PyObject *seq, int *out, int cap, const char *what) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > cap) { Py_DECREF(fast); PyErr_Format(PyExc_ValueError, "%s: more than %d items", what, cap); return -1; }
    for (Py_ssize_t i = 0; i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(fast); return -1; }
        out[i] = (int)v;
    }
    Py_DECREF(fast);
    return (int)n;
}

static PyTypeObject FastDealType;

static FastDeal *new_deal(PyObject *reshuffler) {
    FastDeal *f = PyObject_New(FastDeal, &FastDealType);
    if (!f) return NULL;
    memset(&f->opts, 0, sizeof(Opts));
    memset(&f->d, 0, sizeof(Deal));
    f->error = 0;
    Py_INCREF(reshuffler);
    f->reshuffler = reshuffler;
    return f;
}
static void fastdeal_dealloc(FastDeal *f) { Py_XDECREF(f->reshuffler); PyObject_Free(f); }

/* opts: a 20-int tuple (fast.py, _opts), then the 52 effect codes and the 52 card values */
static int read_opts(Opts *o, PyObject *flags, PyObject *effects, PyObject *values) {
    int v[20], e[52], w[52];
    if (read_ints(flags, v, 20, "options") != 20) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "20 options");
        return -1;
    }
    if (read_ints(effects, e, 52, "effects") != 52 || read_ints(values, w, 52, "values") != 52) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "52 effects and 52 values");
        return -1;
    }
    o->declares = v[0]; o->eights_match_suit = v[1]; o->go_out_on_eight = v[2]; o->after_draw = v[3];
    o->cards_a_turn = v[4]; o->refuse_first_holding = v[5]; o->refuse_later_holding = v[6];
    o->stock_out_ends_turn = v[7]; o->may_keep_drawn_card = v[8]; o->reshuffle = v[9];
    o->turn_ends_when_stuck = v[10]; o->twos_stack = v[11]; o->queen_draw = v[12]; o->effects_on_going_out = v[13];
    o->reverse_skips = v[14]; o->last_card = v[15]; o->partnership = v[16]; o->simple_turns = v[17];
    o->ply_limit = v[18]; o->starter = v[19];
    for (int i = 0; i < 52; i++) { o->effects[i] = (unsigned char)e[i]; o->values[i] = w[i]; }
    return 0;
}

static int read_seed(Deal *d, PyObject *seed) {
    if (PyLong_Check(seed)) {
        d->seed = PyLong_AsUnsignedLongLongMask(seed);
        if (PyErr_Occurred()) return -1;
        d->int_seed = 1;
    } else d->int_seed = 0;
    return 0;
}

/* Whether ``d`` and ``o`` are a state the rules can run on (a private constructor is still fed only checked
   values: a card out of range would index past the arrays). Sets ValueError naming the first fault. */
static int check_state(const Deal *d, const Opts *o) {
    const char *why = NULL;
    int total = d->nstock + d->ndiscard;
    for (int i = 0; i < d->nstock && !why; i++) if (d->stock[i] < 0 || d->stock[i] > 51) why = "a stock card";
    for (int i = 0; i < d->ndiscard && !why; i++) if (d->discard[i] < 0 || d->discard[i] > 51) why = "a pile card";
    for (int s = 0; s < d->seats && !why; s++) {
        if ((d->masks[s] | d->dups[s]) >> 52 || (d->dups[s] & ~d->masks[s])) why = "a hand's masks";
        else if (d->sizes[s] != __builtin_popcountll(d->masks[s]) + __builtin_popcountll(d->dups[s]))
            why = "a hand's size";
        total += d->sizes[s];
    }
    if (!why && total > MAX_CARDS) why = "the number of cards";
    if (!why && (d->to_play < 0 || d->to_play >= d->seats)) why = "to_play";
    if (!why && (d->leader < 0 || d->leader >= d->seats || d->dealer < 0 || d->dealer >= d->seats))
        why = "the leader or dealer";
    if (!why && (d->declared < -1 || d->declared > 3)) why = "the declared suit";
    if (!why && (d->last_drawn < -1 || d->last_drawn > 51)) why = "the last card drawn";
    if (!why && d->direction != 1 && d->direction != -1) why = "the direction";
    if (!why && (d->drawn < 0 || d->pending < 0 || d->passes < 0 || d->reshuffles < 0 || d->ply < 0
                 || d->twos_run < 0 || d->twos_run > 4)) why = "a counter";
    if (!why && (o->after_draw < 0 || o->after_draw > 2 || o->starter < 0 || o->starter > 3 || o->cards_a_turn < 1
                 || o->last_card < 0 || o->queen_draw < 0 || o->ply_limit < 1)) why = "an option";
    for (int c = 0; c < 52 && !why; c++) if (o->effects[c] > FX_REVERSE) why = "a card effect";
    if (!why) return 0;
    PyErr_Format(PyExc_ValueError, "not a deal the fast path can play: %s is out of range", why);
    return -1;
}

/* FastDeal.from_state(flags, effects, values, seed, reshuffler, seats, masks, dups, sizes, out, stock, discard,
   counters): counters = (to_play, declared, drawn, last_drawn, pending, pending_from_twos, twos_run, direction,
   awaiting, announced, passes, reshuffles, ply, leader, dealer) */
static PyObject *fd_from_state(PyObject *cls, PyObject *args) {
    PyObject *flags, *effects, *values, *seed, *reshuffler, *masks, *dups, *sizes, *out, *stock, *discard, *counters;
    int seats;
    if (!PyArg_ParseTuple(args, "OOOOOiOOOOOOO", &flags, &effects, &values, &seed, &reshuffler, &seats, &masks,
                          &dups, &sizes, &out, &stock, &discard, &counters)) return NULL;
    if (seats < 2 || seats > MAX_SEATS) return PyErr_Format(PyExc_ValueError, "seats must be 2 to %d", MAX_SEATS);
    FastDeal *f = new_deal(reshuffler);
    if (!f) return NULL;
    Deal *d = &f->d;
    d->seats = seats;
    int c[15], s[MAX_SEATS], o[MAX_SEATS];
    PyObject *mfast = NULL;
    if (read_opts(&f->opts, flags, effects, values) < 0 || read_seed(d, seed) < 0) goto fail;
    if (read_ints(sizes, s, MAX_SEATS, "sizes") != seats || read_ints(out, o, MAX_SEATS, "out") != seats) goto bad;
    for (int k = 0; k < 2; k++) {
        mfast = PySequence_Fast(k ? dups : masks, "masks");
        if (!mfast || PySequence_Fast_GET_SIZE(mfast) != seats) goto bad;
        for (int i = 0; i < seats; i++) {
            uint64_t v = PyLong_AsUnsignedLongLongMask(PySequence_Fast_GET_ITEM(mfast, i));
            if (PyErr_Occurred()) goto fail;
            if (k) d->dups[i] = v; else d->masks[i] = v;
        }
        Py_CLEAR(mfast);
    }
    for (int i = 0; i < seats; i++) { d->sizes[i] = s[i]; d->out[i] = (char)(o[i] != 0); }
    if ((d->nstock = read_ints(stock, d->stock, MAX_CARDS, "stock")) < 0) goto fail;
    if ((d->ndiscard = read_ints(discard, d->discard, MAX_CARDS, "discard")) < 0) goto fail;
    if (read_ints(counters, c, 15, "counters") != 15) goto bad;
    d->to_play = c[0]; d->declared = c[1]; d->drawn = c[2]; d->last_drawn = c[3]; d->pending = c[4];
    d->pending_from_twos = c[5]; d->twos_run = c[6]; d->direction = c[7]; d->awaiting = c[8]; d->announced = c[9];
    d->passes = c[10]; d->reshuffles = c[11]; d->ply = c[12]; d->leader = c[13]; d->dealer = c[14];
    d->step = 1; d->winner = -1;
    if (check_state(d, &f->opts) < 0) goto fail;
    return (PyObject *)f;
bad:
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "a deal's state of the wrong shape");
fail:
    Py_XDECREF(mfast);
    Py_DECREF(f);
    return NULL;
}

/* FastDeal.start(flags, effects, values, deck, seats, per_hand (-1: the whole deck), seed (int), dealer, leader
   (-1: left of the dealer)) */
static PyObject *fd_start(PyObject *cls, PyObject *args) {
    PyObject *flags, *effects, *values, *deck, *seed;
    int seats, per_hand, dealer, leader;
    if (!PyArg_ParseTuple(args, "OOOOiiOii", &flags, &effects, &values, &deck, &seats, &per_hand, &seed, &dealer,
                          &leader)) return NULL;
    if (seats < 2 || seats > MAX_SEATS) return PyErr_Format(PyExc_ValueError, "seats must be 2 to %d", MAX_SEATS);
    if (!PyLong_Check(seed)) return PyErr_Format(PyExc_TypeError, "start deals from an int seed");
    FastDeal *f = new_deal(Py_None);
    if (!f) return NULL;
    int cards[MAX_CARDS];
    int n;
    if (read_opts(&f->opts, flags, effects, values) < 0 || read_seed(&f->d, seed) < 0
        || (n = read_ints(deck, cards, MAX_CARDS, "deck")) < 0) { Py_DECREF(f); return NULL; }
    for (int i = 0; i < n; i++) {
        if (cards[i] < 0 || cards[i] > 51) { Py_DECREF(f); return PyErr_Format(PyExc_ValueError, "a deck card"); }
    }
    if (dealer < 0 || dealer >= seats || leader >= seats) {
        Py_DECREF(f);
        return PyErr_Format(PyExc_ValueError, "dealer must be a seat from 0 to %d", seats - 1);
    }
    if (per_hand >= 0 && per_hand * seats + 1 > n) {
        Py_DECREF(f);
        return PyErr_Format(PyExc_ValueError, "hand_size %d for %d seats needs %d cards", per_hand, seats,
                            per_hand * seats + 1);
    }
    memcpy(f->opts.deck, cards, sizeof(int) * n);
    f->opts.ndeck = n;
    f->opts.per_hand = per_hand;
    f->d.seats = seats;
    f->d.declared = -1; f->d.last_drawn = -1; f->d.direction = 1; f->d.step = 1; f->d.winner = -1;
    f->d.dealer = dealer;
    deal_start(f, f->opts.deck, n, per_hand, f->d.seed, dealer, leader);
    if (check_state(&f->d, &f->opts) < 0) { Py_DECREF(f); return NULL; }
    return (PyObject *)f;
}

/* redeal(seed, dealer, leader): a new deal under the same options, seats and deck as one made by ``start``,
   dealt from an int seed (fast.start keeps one such deal per ruleset and seat count) */
static PyObject *fd_redeal(FastDeal *f, PyObject *args) {
    PyObject *seed;
    int dealer, leader;
    if (!PyArg_ParseTuple(args, "Oii", &seed, &dealer, &leader)) return NULL;
    if (!f->opts.ndeck) return PyErr_Format(PyExc_ValueError, "redeal needs a deal made by start");
    if (!PyLong_Check(seed)) return PyErr_Format(PyExc_TypeError, "redeal deals from an int seed");
    if (dealer < 0 || dealer >= f->d.seats || leader >= f->d.seats)
        return PyErr_Format(PyExc_ValueError, "dealer must be a seat from 0 to %d", f->d.seats - 1);
    FastDeal *g = new_deal(Py_None);
    if (!g) return NULL;
    g->opts = f->opts;
    if (read_seed(&g->d, seed) < 0) { Py_DECREF(g); return NULL; }
    g->d.seats = f->d.seats;
    g->d.declared = -1; g->d.last_drawn = -1; g->d.direction = 1; g->d.step = 1; g->d.winner = -1;
    g->d.dealer = dealer;
    deal_start(g, g->opts.deck, g->opts.ndeck, g->opts.per_hand, g->d.seed, dealer, leader);
    return (PyObject *)g;
}

static PyObject *fd_legal_ids(FastDeal *f, PyObject *unused) {
    int ids[MAX_LEGAL];
    int n = legal_ids(f, ids);
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(list, i, PyLong_FromLong(ids[i]));
    return list;
}

static PyObject *fd_apply_id(FastDeal *f, PyObject *arg) {
    long a = PyLong_AsLong(arg);
    if (a == -1 && PyErr_Occurred()) return NULL;
    int ids[MAX_LEGAL];
    int n = legal_ids(f, ids), ok = 0;
    for (int i = 0; i < n; i++) ok |= ids[i] == a;
    if (!ok) return PyErr_Format(PyExc_ValueError, "action id %ld is not legal now", a);
    f->error = 0;
    apply_legal(f, (int)a);
    if (f->error) return NULL;
    Py_RETURN_NONE;
}

/* Card codes in Python's string order ("2C" < ... < "9S" < "AC" < "JC" < "KC" < "QC" < "TC"): the heuristic's tie
   break, as strategies.heuristic_strategy's max over (score, code). */
static int CODE_ORDER[52];
static const char RANK_CHARS[] = "A23456789TJQK";

static int longest_suit(const Deal *d, int seat, const int *counts) {
    int best = 3, most = 0;  /* nothing but eights: spades (strategies._best_suit) */
    for (int s = 0; s < 4; s++) if (counts[s] && counts[s] >= most) { most = counts[s]; best = s; }
    (void)d; (void)seat;
    return best;
}

/* The heuristic policy (strategies.heuristic_strategy at the ruleset's card values): announce a last card; shed the
   plain card of most value plus three a card left in its suit, keeping an eight while a plain card fits unless an
   opponent holds two cards or fewer; an eight names the longest suit; with no play: declare the longest suit, draw,
   pass. */
static int heuristic_id(const FastDeal *f, const int *ids, int n, int plays) {
    const Deal *d = &f->d;
    int seat = d->to_play, counts[4] = {0, 0, 0, 0};
    for (int c = 0; c < 52; c++) {
        if (c % 13 == EIGHT) continue;
        counts[c / 13] += (int)(d->masks[seat] >> c & 1) + (int)(d->dups[seat] >> c & 1);
    }
    if (!plays) {
        if (ids[0] >= DECLARE && ids[0] < ANNOUNCE) return DECLARE + longest_suit(d, seat, counts);
        for (int i = 0; i < n; i++) if (ids[i] == DRAW) return DRAW;
        for (int i = 0; i < n; i++) if (ids[i] == PASS) return PASS;
        return ids[0];
    }
    int low = 1 << 30;
    for (int t = 0; t < d->seats; t++) if (t != seat && d->sizes[t] < low) low = d->sizes[t];
    int best = -1, best_score = 0, eight = -1;
    for (int i = 0; i < plays; i++) {
        int card = ids[i] < 52 ? ids[i] : ((ids[i] - 52) / 4) * 13 + EIGHT;
        if (card % 13 == EIGHT) { if (eight < 0) eight = ids[i]; continue; }
        int score = f->opts.values[card] + 3 * (counts[card / 13] - 1);
        if (best < 0 || score > best_score || (score == best_score && CODE_ORDER[card] > CODE_ORDER[best])) {
            best = card; best_score = score;
        }
    }
    if (best >= 0 && !(low <= 2 && eight >= 0)) return best;
    if (eight < 52) return eight;  /* eights declare nothing under this ruleset */
    return 52 + 4 * ((eight - 52) / 4) + longest_suit(d, seat, counts);
}

#define NO_LIMIT (1 << 30)

static inline int card_of_play(int id) { return id < 52 ? id : ((id - 52) / 4) * 13 + EIGHT; }

/* How many cards of ``target``'s hand would fit after play ``id``: its eights, the cards of the suit the play leaves
   to follow, and (a plain card) the cards of its rank. */
static int fits_after(const Deal *d, int target, int id) {
    int card = card_of_play(id), suit = id < 52 ? card / 13 : (id - 52) % 4, rank = card % 13, n = 0;
    for (int c = 0; c < 52; c++) {
        int k = (int)(d->masks[target] >> c & 1) + (int)(d->dups[target] >> c & 1);
        if (k && (c % 13 == EIGHT || c / 13 == suit || c % 13 == rank)) n += k;
    }
    return n;
}

/* The tactical policy (fast.tactical_id, the tactician's tactics read with the whole deal in view, as a playout
   may): out with a last card; an opponent with one card: the play after which it holds fewest fitting cards, the
   most valuable of those; plain cards before eights, into the longest suit once a suit is gone from the hand, else
   the most valuable; with a hand longer than four cards and two or more draws left, nobody close to going out, an
   eight that is the only play is held, and a card of ten points or more that nothing in hand would follow is kept,
   by drawing; an eight names the longest suit; with no play: as the heuristic. */
static int tactical_id(const FastDeal *f, const int *ids, int n, int plays) {
    const Deal *d = &f->d;
    const Opts *o = &f->opts;
    int seat = d->to_play, hand = d->sizes[seat], counts[4] = {0, 0, 0, 0}, ranks[13] = {0}, eights = 0;
    for (int c = 0; c < 52; c++) {
        int k = (int)(d->masks[seat] >> c & 1) + (int)(d->dups[seat] >> c & 1);
        if (!k) continue;
        ranks[c % 13] += k;
        if (c % 13 == EIGHT) eights += k; else counts[c / 13] += k;
    }
    if (!plays) return heuristic_id(f, ids, n, plays);
    if (hand == 1) return ids[0];
    int target = -1, close = 0, low = 1 << 30;
    for (int k = 1; k < d->seats; k++) {
        int t = ((seat + k * d->direction) % d->seats + d->seats) % d->seats;
        if (d->out[t]) continue;
        if (d->sizes[t] < low) low = d->sizes[t];
        if (target < 0 && d->sizes[t] > 0 && d->sizes[t] <= 1) target = t;
    }
    close = low <= 2;
    if (target >= 0 && !d->pending) {
        int best = -1, best_fits = 0, best_value = 0;
        for (int i = 0; i < plays; i++) {
            int card = card_of_play(ids[i]), fits = fits_after(d, target, ids[i]), value = o->values[card];
            if (best < 0 || fits < best_fits || (fits == best_fits && (value > best_value
                    || (value == best_value && CODE_ORDER[card] > CODE_ORDER[card_of_play(best)])))) {
                best = ids[i]; best_fits = fits; best_value = value;
            }
        }
        return best;
    }
    int may_draw = 0;
    if (hand > 4 && !d->drawn && !d->pending && !close && o->cards_a_turn != NO_LIMIT && o->cards_a_turn >= 2)
        for (int i = plays; i < n; i++) may_draw |= ids[i] == DRAW;
    int gone = !counts[0] || !counts[1] || !counts[2] || !counts[3];
    int best = -1, best_left = 0, best_value = 0, eight = -1;
    for (int i = 0; i < plays; i++) {
        int card = card_of_play(ids[i]);
        if (card % 13 == EIGHT) { if (eight < 0) eight = ids[i]; continue; }
        int left = counts[card / 13] - 1, value = o->values[card];
        int first = gone ? left : value, second = gone ? value : left;
        int best_first = gone ? best_left : best_value, best_second = gone ? best_value : best_left;
        if (best < 0 || first > best_first || (first == best_first && (second > best_second
                || (second == best_second && CODE_ORDER[card] > CODE_ORDER[best])))) {
            best = card; best_left = left; best_value = value;
        }
    }
    if (best < 0) {
        if (may_draw) return DRAW;
        if (eight < 52) return eight;
        return 52 + 4 * ((eight - 52) / 4) + longest_suit(d, seat, counts);
    }
    if (may_draw && best_value >= 10 && !eights && !best_left && ranks[best % 13] == 1) return DRAW;
    return best;
}

/* The playout policies: 0 uniform (any legal action), 1 eager (announce a last card when it may, else any legal
   play, else any legal action), 2 heuristic (heuristic_id), 3 tactical (tactical_id): one choice from ``ids``,
   drawing from ``state`` as fast.py's pure path does. */
static inline int choose_id(const FastDeal *f, const int *ids, int n, int policy, uint64_t *state) {
    if (policy) {
        int plays = 0;
        if (ids[n - 1] == ANNOUNCE) return ANNOUNCE;
        while (plays < n && ids[plays] < DRAW) plays++;  /* plays come first in canonical order */
        if (policy == 2) return heuristic_id(f, ids, n, plays);
        if (policy == 3) return tactical_id(f, ids, n, plays);
        if (plays) return ids[sm_below(state, (uint64_t)plays)];
    }
    return ids[sm_below(state, (uint64_t)n)];
}

/* playout(seed, policy=0): legal actions chosen by the policy with SplitMix64(seed, 0) until the deal ends;
   returns the plies played */
static PyObject *fd_playout(FastDeal *f, PyObject *args) {
    PyObject *seedobj;
    int policy = 0;
    if (!PyArg_ParseTuple(args, "O|i", &seedobj, &policy)) return NULL;
    if (policy < 0 || policy > 3)
        return PyErr_Format(PyExc_ValueError, "policy is 0 (uniform), 1 (eager), 2 (heuristic) or 3 (tactical)");
    uint64_t state = sm_start(PyLong_AsUnsignedLongLongMask(seedobj), 0);
    if (PyErr_Occurred()) return NULL;
    int ids[MAX_LEGAL];
    long plies = 0;
    f->error = 0;
    while (!f->d.over) {
        int n = legal_ids(f, ids);
        apply_legal(f, choose_id(f, ids, n, policy, &state));
        if (f->error) return NULL;
        plies++;
    }
    return PyLong_FromLong(plies);
}

/* determinize(seat, seed): the cards ``seat`` cannot see (the other hands and the stock) dealt again at random
   (SplitMix64(seed, 0)): each hand keeps its size, the stock its length; the reshuffles of the new deal come
   from an int seed drawn next from the same stream. Returns a new FastDeal. */
static PyObject *fd_determinize(FastDeal *f, PyObject *args) {
    int seat;
    PyObject *seedobj;
    if (!PyArg_ParseTuple(args, "iO", &seat, &seedobj)) return NULL;
    uint64_t state = sm_start(PyLong_AsUnsignedLongLongMask(seedobj), 0);
    if (PyErr_Occurred()) return NULL;
    if (seat < 0 || seat >= f->d.seats)
        return PyErr_Format(PyExc_ValueError, "seat must be from 0 to %d", f->d.seats - 1);
    if (seat != f->d.to_play && f->d.drawn)
        return PyErr_Format(PyExc_ValueError, "another seat has drawn this turn: determinize for the seat to play");
    FastDeal *g = new_deal(Py_None);
    if (!g) return NULL;
    g->opts = f->opts;
    g->d = f->d;
    Deal *d = &g->d;
    int hidden[MAX_CARDS], n = 0;
    for (int s = 0; s < d->seats; s++) {
        if (s == seat) continue;
        for (int c = 0; c < 52; c++) {
            if (d->masks[s] >> c & 1) hidden[n++] = c;
            if (d->dups[s] >> c & 1) hidden[n++] = c;
        }
    }
    for (int i = 0; i < d->nstock; i++) hidden[n++] = d->stock[i];
    sm_shuffle(&state, hidden, n);
    int k = 0;
    for (int s = 0; s < d->seats; s++) {
        if (s == seat) continue;
        d->masks[s] = d->dups[s] = 0;
        int size = d->sizes[s];
        d->sizes[s] = 0;
        for (int i = 0; i < size; i++) add_card(d, s, hidden[k++]);
    }
    for (int i = 0; i < d->nstock; i++) d->stock[i] = hidden[k++];
    d->seed = sm_next(&state);
    d->int_seed = 1;
    return (PyObject *)g;
}

static PyObject *fd_clone(FastDeal *f, PyObject *unused) {
    FastDeal *g = new_deal(f->reshuffler);
    if (!g) return NULL;
    g->opts = f->opts;
    g->d = f->d;
    return (PyObject *)g;
}

static PyObject *int_list(const int *v, int n) {
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(list, i, PyLong_FromLong(v[i]));
    return list;
}

/* state(): the whole state as fast.py's FastState fields, in order (for comparisons with the pure engine) */
static PyObject *fd_state(FastDeal *f, PyObject *unused) {
    Deal *d = &f->d;
    PyObject *masks = PyList_New(d->seats), *dups = PyList_New(d->seats), *out = PyList_New(d->seats);
    if (!masks || !dups || !out) { Py_XDECREF(masks); Py_XDECREF(dups); Py_XDECREF(out); return NULL; }
    for (int s = 0; s < d->seats; s++) {
        PyList_SET_ITEM(masks, s, PyLong_FromUnsignedLongLong(d->masks[s]));
        PyList_SET_ITEM(dups, s, PyLong_FromUnsignedLongLong(d->dups[s]));
        PyList_SET_ITEM(out, s, PyBool_FromLong(d->out[s]));
    }
    PyObject *values = d->over ? int_list(d->hand_values, d->seats) : (Py_INCREF(Py_None), Py_None);
    return Py_BuildValue("NNNNNN" "iiiiiiii" "iiiiiiii" "N", masks, dups, int_list(d->sizes, d->seats), out,
                         int_list(d->stock, d->nstock), int_list(d->discard, d->ndiscard), d->to_play, d->declared,
                         d->drawn, d->last_drawn, d->pending, d->pending_from_twos, d->twos_run, d->direction,
                         d->awaiting, d->announced, d->passes, d->reshuffles, d->ply, d->over,
                         d->over ? d->outcome : -1, d->over ? d->winner : -1, values);
}

static PyObject *fd_get_over(FastDeal *f, void *closure) { return PyBool_FromLong(f->d.over); }
static PyObject *fd_get_to_play(FastDeal *f, void *closure) { return PyLong_FromLong(f->d.to_play); }
static PyObject *fd_get_ply(FastDeal *f, void *closure) { return PyLong_FromLong(f->d.ply); }
static PyObject *fd_get_seats(FastDeal *f, void *closure) { return PyLong_FromLong(f->d.seats); }

static PyMethodDef fd_methods[] = {
    {"from_state", (PyCFunction)fd_from_state, METH_VARARGS | METH_CLASS, "a deal from a pure Deal's state"},
    {"start", (PyCFunction)fd_start, METH_VARARGS | METH_CLASS, "deal from an int seed, as Deal.start"},
    {"redeal", (PyCFunction)fd_redeal, METH_VARARGS, "a new deal from an int seed, as start with the same rules"},
    {"legal_ids", (PyCFunction)fd_legal_ids, METH_NOARGS, "the legal action ids, canonical order"},
    {"apply_id", (PyCFunction)fd_apply_id, METH_O, "apply a legal action id (ValueError otherwise)"},
    {"playout", (PyCFunction)fd_playout, METH_VARARGS,
     "play to the deal's end (policy 0 uniform, 1 eager, 2 heuristic, 3 tactical); the plies"},
    {"determinize", (PyCFunction)fd_determinize, METH_VARARGS, "the hidden cards dealt again, as a new deal"},
    {"clone", (PyCFunction)fd_clone, METH_NOARGS, "an independent copy"},
    {"state", (PyCFunction)fd_state, METH_NOARGS, "the whole state as a tuple (fast.FastState)"},
    {NULL, NULL, 0, NULL},
};
static PyGetSetDef fd_getset[] = {
    {"is_over", (getter)fd_get_over, NULL, "whether the deal has ended", NULL},
    {"to_play", (getter)fd_get_to_play, NULL, "the seat to play", NULL},
    {"ply", (getter)fd_get_ply, NULL, "plies played in the deal", NULL},
    {"seats", (getter)fd_get_seats, NULL, "seats at the deal", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};
static PyTypeObject FastDealType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "eights_engine._fastplay.FastDeal",
    .tp_basicsize = sizeof(FastDeal),
    .tp_dealloc = (destructor)fastdeal_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One deal's state for the compiled fast path (eights_engine.fast)",
    .tp_methods = fd_methods,
    .tp_getset = fd_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "_fastplay", .m_doc = "The engine's compiled fast path", .m_size = -1,
};

PyMODINIT_FUNC PyInit__fastplay(void) {
    for (int s = 0; s < 4; s++) { SUIT_MASK[s] = 0; for (int r = 0; r < 13; r++) SUIT_MASK[s] |= 1ULL << (s * 13 + r); }
    for (int r = 0; r < 13; r++) { RANK_MASK[r] = 0; for (int s = 0; s < 4; s++) RANK_MASK[r] |= 1ULL << (s * 13 + r); }
    EIGHTS = RANK_MASK[EIGHT];
    for (int a = 0; a < 52; a++) {  /* rank of card a's code among the 52 codes in string order */
        int rank = 0;
        for (int b = 0; b < 52; b++) {
            char ra = RANK_CHARS[a % 13], rb = RANK_CHARS[b % 13];
            if (rb < ra || (rb == ra && "CDHS"[b / 13] < "CDHS"[a / 13])) rank++;
        }
        CODE_ORDER[a] = rank;
    }
    TWOS = RANK_MASK[TWO];
    if (PyType_Ready(&FastDealType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&FastDealType);
    if (PyModule_AddObject(m, "FastDeal", (PyObject *)&FastDealType) < 0) {
        Py_DECREF(&FastDealType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
