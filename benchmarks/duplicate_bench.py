"""How many matches until the stronger of two house strategies is ranked first with 95 % confidence, with and
without duplicate pairing (issue 12, "Trust").

One *run* is a ladder of two entries, the strong strategy S and the weak one W, both starting from openskill's
default rating and rated as the ladder rates (``openskill.models.PlackettLuce()`` with its defaults, the model of
``tournaments.services``). After every rating update the run asks whether S is *ranked first with 95 % confidence*:
S's ordinal (mu - 3 sigma, the leaderboard's order) is above W's and, taking the two ratings as independent normal
beliefs, P(S's skill > W's) = Phi((mu_S - mu_W) / sqrt(sigma_S^2 + sigma_W^2)) >= 0.95. The run's figure is the
number of matches played when that first holds (a duplicate set of two mirrored matches counts as two matches);
a run that has not got there after ``--max-matches`` is censored (counted as "more than the cap": quartiles that
fall there print as ">cap"). Runs where W was ranked first with 95 % confidence before S are counted as wrong.

Tracks, each over its own run of matches (the same runs, seeds derived from ``--seed`` and the run number):
* ``plain``: independent matches (a new random match seed each), S in seat ``i % 2`` of match i; each match rated
  on its own from its places: the ladder without duplicate play.
* ``duplicate``: mirrored sets (one match seed, S in seat 0 then in seat 1, ``tournaments.duplicate.rotations``),
  rated once per set from the combined result ``tournaments.duplicate.combined_places`` (swings over the common
  deals): the duplicate ladder.
* ``dup-points``: the same sets rated once per set by combined match points (each entry's totals of both matches
  added; penalty scoring: the lower sum first), the alternative that ``tournaments/duplicate.py`` explains it did
  not choose.
* ``duplicate-x2``: the same sets and combined result, applied as two openskill updates (the weight of the set's
  two matches) instead of one.
* ``mirror-each``: the same sets, each match rated on its own: mirrored seeds without a combined result.
* ``sign-plain`` and ``sign-dup``: no ratings, a one-sided sign test (ties dropped) on the plain matches' results
  and on the sets' combined results: the evidence itself, without openskill's fixed step per update.

``--effect N`` measures instead how much one pair of matches tells, without ratings: N mirrored sets and N pairs of
independent matches (S once in each seat); per pair, S's margin (its points advantage over the two matches, penalty
scoring: W's total minus S's; for the sets also the summed swing); the effect size mean / standard deviation of the
margin; "sd² ratio", the margin's variance against that of independent pairs (for the points margin, whose expected
value is the same with or without mirrored seeds, this is the ratio of the pairs a t-test needs for the same
confidence: below 1, mirrored seeds need fewer), and "pairs needed", the same ratio from the effect sizes
((independent mean/sd / this mean/sd)^2: it also covers swings, whose scale differs, but is noisy when the margins are
small against their spread).

Usage: ``python benchmarks/duplicate_bench.py [--strong tactician] [--weak greedy] [--preset pagat] [--runs 200]
[--max-matches 400] [--seed 1] [--jobs 2] [--effect N]``. Progress goes to stderr; the table to stdout. The engine and the
strategies are deterministic, so the same arguments print the same figures.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from openskill.models import PlackettLuce  # noqa: E402

from eights_engine import MatchState, Ruleset, choose  # noqa: E402
from tournaments.duplicate import SetMatch, combined_places, rotations, swing_totals  # noqa: E402

MODEL = PlackettLuce()
TRACKS = ("plain", "duplicate", "duplicate-x2", "dup-points", "mirror-each", "sign-plain", "sign-dup")
CONFIDENCE = 0.95


def play(rules: Ruleset, seed: int, seating: list[str]) -> MatchState:
    """One complete match of the house strategies in ``seating`` (a strategy name per seat)."""
    state = MatchState.start(rules, len(seating), seed)
    while not state.is_over:
        seat = state.to_play
        state.apply(choose(seating[seat], state.view(seat), state.legal_actions(), state.deal.seed))
    return state


class Track:
    """One ladder of S and W: ratings, matches played, and when S (or W) was first ranked first with confidence."""

    def __init__(self) -> None:
        self.ratings = {"S": MODEL.rating(), "W": MODEL.rating()}
        self.matches = 0
        self.found: int | None = None  # matches played when S was first ranked first with 95 % confidence
        self.wrong = False  # W was ranked first with 95 % confidence before that

    def rate(self, places: dict, matches: int, updates: int = 1) -> None:
        if self.found is not None:
            return
        for _ in range(updates):
            new = MODEL.rate([[self.ratings["S"]], [self.ratings["W"]]], ranks=[places["S"], places["W"]])
            self.ratings = {"S": new[0][0], "W": new[1][0]}
        self.matches += matches
        if first_with_confidence(self.ratings["S"], self.ratings["W"]):
            self.found = self.matches
        elif first_with_confidence(self.ratings["W"], self.ratings["S"]):
            self.wrong = True


class SignTrack:
    """A one-sided sign test instead of ratings: after each result (a match, or a set's combined result), S is
    first with 95 % confidence once P(at least S's wins | wins + losses results, fair coin) <= 0.05; ties dropped."""

    def __init__(self) -> None:
        self.wins = self.losses = self.matches = 0
        self.found: int | None = None
        self.wrong = False

    def rate(self, places: dict, matches: int) -> None:
        if self.found is not None:
            return
        self.matches += matches
        self.wins += places["S"] < places["W"]
        self.losses += places["W"] < places["S"]
        if binomial_tail(self.wins, self.wins + self.losses) <= 1 - CONFIDENCE:
            self.found = self.matches
        elif binomial_tail(self.losses, self.wins + self.losses) <= 1 - CONFIDENCE:
            self.wrong = True


def binomial_tail(k: int, n: int) -> float:
    """P(X >= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n if n else 1.0


def first_with_confidence(a, b) -> bool:
    """``a`` is ranked above ``b`` (ordinal) and P(a's skill > b's) >= 95 % under the two normal beliefs."""
    if a.ordinal() <= b.ordinal():
        return False
    z = (a.mu - b.mu) / math.sqrt(a.sigma ** 2 + b.sigma ** 2)
    return 0.5 * (1 + math.erf(z / math.sqrt(2))) >= CONFIDENCE


def match_places(state: MatchState, seating: list[str]) -> dict:
    """The places of S and W in one match (a 2-seat match: "S"/"W" keyed)."""
    return {seating[s]: place for s, place in enumerate(state.standings)}


def one_run(args: tuple) -> dict:
    """Play run ``run``: every track until it has its answer or ``max_matches`` matches. Returns, per track, the
    matches needed (None: censored) and whether it was wrong first."""
    strong, weak, preset, run, seed, max_matches = args
    rules = Ruleset.preset(preset)
    names = {"S": strong, "W": weak}
    lower = rules.lower_total_wins
    rng = random.Random(f"duplicate-bench {seed} {run}")
    tracks = {name: SignTrack() if name.startswith("sign") else Track() for name in TRACKS}
    i = 0
    while tracks["plain"].found is None and tracks["plain"].matches < max_matches:
        seating = ["S", "W"] if i % 2 == 0 else ["W", "S"]
        state = play(rules, rng.getrandbits(40), [names[p] for p in seating])
        tracks["plain"].rate(match_places(state, seating), 1)
        i += 1
    while tracks["sign-plain"].found is None and tracks["sign-plain"].matches < max_matches:
        seating = ["S", "W"] if i % 2 == 0 else ["W", "S"]
        state = play(rules, rng.getrandbits(40), [names[p] for p in seating])
        tracks["sign-plain"].rate(match_places(state, seating), 1)
        i += 1
    dup = ("duplicate", "duplicate-x2", "dup-points", "mirror-each", "sign-dup")
    while any(tracks[t].found is None and tracks[t].matches < max_matches for t in dup):
        seed_ = rng.getrandbits(40)
        seatings = rotations(["S", "W"])  # S in seat 0, then in seat 1
        states = [play(rules, seed_, [names[p] for p in seating]) for seating in seatings]
        sets = [SetMatch.of(seating, [r.points for r in state.results]) for seating, state in zip(seatings, states)]
        combined = combined_places(sets, lower_is_better=lower)
        tracks["duplicate"].rate(combined, 2)
        tracks["duplicate-x2"].rate(combined, 2, updates=2)
        tracks["sign-dup"].rate(combined, 2)
        sums = {p: sum(state.totals[seating.index(p)] for seating, state in zip(seatings, states)) for p in "SW"}
        if rules.scoring == "hollywood" or not lower:
            sums = {p: -v for p, v in sums.items()}
        tracks["dup-points"].rate({p: 1 + (sums[p] > sums[q]) for p, q in (("S", "W"), ("W", "S"))}, 2)
        for seating, state in zip(seatings, states):
            tracks["mirror-each"].rate(match_places(state, seating), 1)
    return {name: (t.found, t.wrong) for name, t in tracks.items()}


def effect_sizes(strong: str, weak: str, preset: str, sets: int, seed: int, tick=lambda: None) -> dict:
    """Margins of S per pair of matches (see the module docstring, ``--effect``): ``independent`` (two matches with
    their own seeds), ``mirror points`` and ``mirror swings`` (a mirrored set). Returns, per kind, (mean, sd, share of
    pairs S was ahead)."""
    rules = Ruleset.preset(preset)
    names = {"S": strong, "W": weak}
    lower = rules.lower_total_wins
    sign = -1 if lower else 1
    rng = random.Random(f"duplicate-bench effect {seed}")
    margins: dict[str, list[float]] = {"independent": [], "mirror points": [], "mirror swings": []}
    seatings = rotations(["S", "W"])
    for _ in range(sets):
        shared = rng.getrandbits(40)
        for kind, seeds in (("mirror", [shared, shared]), ("independent", [rng.getrandbits(40), rng.getrandbits(40)])):
            states = [play(rules, sd, [names[p] for p in seating]) for sd, seating in zip(seeds, seatings)]
            total = {p: sum(st.totals[seating.index(p)] for seating, st in zip(seatings, states)) for p in "SW"}
            points = sign * (total["S"] - total["W"])
            if kind == "independent":
                margins["independent"].append(points)
                continue
            margins["mirror points"].append(points)
            scored = [SetMatch.of(seating, [r.points for r in st.results]) for seating, st in zip(seatings, states)]
            margins["mirror swings"].append(float(swing_totals(scored, lower_is_better=lower)["S"]))
        tick()
    return {kind: (statistics.fmean(v), statistics.pstdev(v), sum(x > 0 for x in v) / len(v))
            for kind, v in margins.items()}


def quartiles(values: list[int | None], cap: int) -> tuple[str, str, str]:
    """Q1, median, Q3 of the matches needed; censored runs (None) count as above the cap."""
    data = sorted(math.inf if v is None else v for v in values)
    out = []
    for p in (0.25, 0.5, 0.75):  # linear interpolation between the closest ranks ("inclusive" quantiles)
        x = p * (len(data) - 1)
        lo, hi = data[math.floor(x)], data[math.ceil(x)]
        out.append(math.inf if math.isinf(hi) else lo + (hi - lo) * (x - math.floor(x)))
    return tuple(f">{cap}" if math.isinf(x) else f"{x:g}" for x in out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strong", default="tactician", help="the stronger house strategy (default tactician)")
    parser.add_argument("--weak", default="greedy", help="the weaker house strategy (default greedy)")
    parser.add_argument("--preset", default="pagat", help="the ruleset preset, 2 seats (default pagat)")
    parser.add_argument("--runs", type=int, default=200, help="runs per track (default 200)")
    parser.add_argument("--max-matches", type=int, default=400, help="a run's cap in matches (default 400)")
    parser.add_argument("--seed", type=int, default=1, help="the runs' seeds derive from it (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--effect", type=int, default=0, metavar="N",
                        help="measure the effect size of N mirrored sets against N independent pairs instead")
    args = parser.parse_args(argv)
    if args.effect:
        return effect_main(args)
    if not 1 <= args.runs <= 100_000 or not 2 <= args.max_matches <= 1_000_000 or not 1 <= args.jobs <= 64:
        parser.error("--runs 1..100000, --max-matches 2..1000000, --jobs 1..64")
    Ruleset.preset(args.preset)  # ValueError names a bad preset
    jobs = [(args.strong, args.weak, args.preset, run, args.seed, args.max_matches) for run in range(args.runs)]
    started = time.monotonic()
    results = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for done, result in enumerate(pool.map(one_run, jobs, chunksize=1), start=1):
            results.append(result)
            print(f"\r{done}/{args.runs} runs, {time.monotonic() - started:.0f} s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    print(f"{args.strong} (S) against {args.weak} (W), preset {args.preset}, 2 seats: matches played until S is ranked "
          f"first with 95 % confidence (openskill PlackettLuce, P(S > W) >= 0.95 and S's ordinal above W's); "
          f"{args.runs} runs per track, cap {args.max_matches} matches, seed {args.seed}")
    print(f"{'track':<13}{'Q1':>7}{'median':>8}{'Q3':>7}{'mean':>8}{'capped':>8}{'W first':>9}   median against "
          "plain (sign-plain for sign-dup)")
    medians = {}
    for track in TRACKS:
        values = [r[track][0] for r in results]
        q1, median, q3 = quartiles(values, args.max_matches)
        found = [v for v in values if v is not None]
        capped = len(values) - len(found)
        wrong = sum(1 for r in results if r[track][1])
        medians[track] = statistics.median(math.inf if v is None else v for v in values)  # inf: censored
        mean = f"{statistics.fmean(found):.1f}" if found and not capped else "-"
        base = "sign-plain" if track.startswith("sign") else "plain"
        ratio = medians[base] / medians[track] if math.isfinite(medians[track]) else float("nan")
        print(f"{track:<13}{q1:>7}{median:>8}{q3:>7}{mean:>8}{capped:>8}{wrong:>9}   "
              f"{'' if track == base else f'{ratio:.2f}x (plain median / this median)'}")
    print(f"{args.runs * len(TRACKS)} runs in {time.monotonic() - started:.0f} s")
    return 0


def effect_main(args) -> int:
    if not 10 <= args.effect <= 1_000_000:
        raise SystemExit("--effect takes 10 to 1000000 sets")
    started = time.monotonic()
    done = [0]

    def tick():
        done[0] += 1
        if done[0] % 10 == 0:
            print(f"\r{done[0]}/{args.effect} sets, {time.monotonic() - started:.0f} s", end="", file=sys.stderr,
                  flush=True)

    result = effect_sizes(args.strong, args.weak, args.preset, args.effect, args.seed, tick)
    print(file=sys.stderr)
    print(f"{args.strong} (S) against {args.weak} (W), preset {args.preset}, 2 seats: S's margin per pair of matches "
          f"(S once in each seat), {args.effect} pairs each, seed {args.seed}")
    print(f"{'pair of matches':<16}{'margin mean':>12}{'sd':>8}{'mean/sd':>9}{'S ahead':>9}{'sd² ratio':>11}"
          f"{'pairs needed':>14}")
    base_mean, base_sd, _ = result["independent"]
    for kind, (mean, sd, ahead) in result.items():
        effect = mean / sd if sd else float("inf")
        variance = (sd / base_sd) ** 2  # the pairs needed when the expected margin is the same (mirror points)
        needed = (base_mean / base_sd / effect) ** 2  # from the effect sizes: noisy when the margins are small
        print(f"{kind:<16}{mean:>12.1f}{sd:>8.1f}{effect:>9.3f}{ahead:>9.1%}{variance:>10.2f}x{needed:>13.2f}x")
    print(f"{4 * args.effect} matches in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
