"""A deal code with the deal's dealer shows exactly the stored deal: the deal code page gives each play's dealer
and the ``python -m eights_engine show`` command that deals its cards, and that command prints the hands the match
was dealt (a deal with dealer 1 included)."""

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from eights_engine import Deal, Ruleset
from games.services import match_advance, match_create

ROOT = Path(__file__).resolve().parents[2]


def _show(*args: str) -> dict[int, list[str]]:
    out = subprocess.run([sys.executable, "-m", "eights_engine", "show", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    return {int(seat): hand.split() for seat, hand in re.findall(r"^  seat (\d+): (.*)$", out, re.M)}


@pytest.mark.django_db
def test_the_deal_code_page_gives_the_command_that_shows_the_dealt_hands(house_bots):
    match = match_create(players=house_bots[:2], ruleset=Ruleset.preset("pagat"), preset="pagat", seed=2024)
    assert match_advance(match_id=match.pk) == "finished"
    deal = match.deals.filter(dealer=1).order_by("number").first()
    assert deal is not None, "the dealer rotates: some deal of a finished match has dealer 1"
    page = html.unescape(Client().get(f"/deals/{deal.code}/").content.decode())
    assert "dealer" in page.lower()
    commands = re.findall(r"python -m eights_engine show ([^<\n]+)", page)
    assert commands, "the page gives the command that prints this deal"
    command = commands[0].split()
    # a version 2 code only names the deal: the public deal's key deals it
    assert command == ["--key", deal.key, "--preset", "pagat", "--seats", "2", "--dealer", "1"]

    dealt = Deal.start(Ruleset.preset("pagat"), 2, bytes.fromhex(deal.key), dealer=deal.dealer)  # as the match dealt it
    hands = _show(*command)
    assert hands == {seat: dealt.hand(seat) for seat in range(2)}
    # without the dealer the same key shows other seats' cards: why the page must say it
    assert _show("--key", deal.key, "--preset", "pagat", "--seats", "2") != hands


def test_the_command_says_which_dealer_it_dealt_for():
    out = subprocess.run([sys.executable, "-m", "eights_engine", "show", "--code", "VNT1AG24"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert "dealer 0" in out and "--dealer" in out  # the default is said, and how to choose another
    helptext = subprocess.run([sys.executable, "-m", "eights_engine", "show", "--help"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60, check=True).stdout
    assert "deal code page" in helptext
