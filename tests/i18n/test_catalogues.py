"""The catalogues stay complete (issue 24, 5): every string marked for translation in the code has a Russian and a
Bulgarian translation (``makemessages`` run afresh into a copy of locale/, then ``msgfmt --statistics``: no
untranslated, no fuzzy), and the translated templates and scripts hold no English text outside the translation
tags, so a new feature cannot quietly add an English-only sentence. Templates and scripts not translated yet are
named in ``PENDING`` (docs/TRANSLATING.md): the list only shrinks, and a new file must be translated from its start."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]

#: templates and scripts whose words are not marked for translation yet (docs/TRANSLATING.md, "Not yet"): none now;
#: a file named here is let off the checks below until it is translated
PENDING: set[str] = set()
#: not the site's pages: drf-spectacular's Swagger page (its own words)
NOT_PAGES = {"templates/drf_spectacular/swagger_ui.html"}


def _files() -> list[str]:
    found = [str(p.relative_to(ROOT)) for p in (ROOT / "templates").rglob("*.html")]
    found += [str(p.relative_to(ROOT)) for p in (ROOT / "static" / "js").glob("*.js")]
    found += [str(p.relative_to(ROOT)) for p in ROOT.glob("*/static/*/*.js")]  # the apps' own scripts
    return sorted(f for f in found if f not in NOT_PAGES)


def test_every_page_file_is_translated_or_named_as_pending():
    missing = sorted(PENDING - set(_files()))
    assert not missing, f"PENDING names files that are gone (take them off): {missing}"


# ---- templates: no English words outside {% translate %} / {% blocktranslate %} -------------------------------------

_BLOCK = re.compile(r"{%\s*blocktranslate\b.*?{%\s*endblocktranslate\s*%}", re.S)
_TAG = re.compile(r"{%.*?%}|{{.*?}}|{#.*?#}", re.S)
_SCRIPT_STYLE = re.compile(r"<(script|style)\b.*?</\1>", re.S)
_HTML_TAG = re.compile(r"<[^>]*>", re.S)
_WORDS = re.compile(r"[A-Za-z][a-z]+(?:[ '][A-Za-z][a-z]+)*")
_ATTRS = re.compile(r'\b(?:aria-label|title|placeholder|alt|data-confirm)="([^"{]*[A-Za-z][^"{]*)"')
#: words that read the same in every language: the service's name, the API, codes shown as code
_SAME_EVERYWHERE = {"Eights Ladder", "API", "HTTP", "SHA", "Tab", "Enter", "md"}  # md: a file name's ending


def _english_in_template(text: str) -> list[str]:
    text = _BLOCK.sub(" ", text)
    attrs = [a for a in _ATTRS.findall(_TAG.sub(" ", text))]
    text = _TAG.sub(" ", text)
    text = _SCRIPT_STYLE.sub(" ", text)
    text = re.sub(r"<(code|kbd)>.*?</\1>", " ", text, flags=re.S)  # code and keys' names read as they are typed
    text = _HTML_TAG.sub(" ", text)
    text = re.sub(r"&[a-z]+;|&#\d+;", " ", text)
    found = [w for w in _WORDS.findall(text) if w not in _SAME_EVERYWHERE]
    return found + attrs


@pytest.mark.parametrize("name", [f for f in _files() if f.endswith(".html") and f not in PENDING])
def test_a_translated_template_has_no_english_outside_the_translation_tags(name):
    found = _english_in_template((ROOT / name).read_text())
    assert not found, f"{name}: mark these for translation ({{% translate %}}): {found}"


# ---- scripts: no English sentence outside gettext() / ngettext() / pgettext() -----------------------------------

_CALL = re.compile(r"\b(?:n|p|np)?gettext\s*\(")
_COMMENT = re.compile(r"(?<![:\\])//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`')


#: keyboard keys' names as scripts compare them (KeyboardEvent.key), not words for people
_KEY_NAMES = {"Escape", "Enter", "Home", "End", "Tab", "Backspace", "Delete"}


def _translated_spans(text: str) -> list[tuple[int, int]]:
    """Where the string arguments of gettext() / ngettext() / pgettext() calls stand: a call's leading run of
    string literals separated by commas."""
    spans = []
    for call in _CALL.finditer(text):
        at = call.end()
        while True:
            while at < len(text) and text[at].isspace():
                at += 1
            literal = _STRING.match(text, at)
            if not literal:
                break
            spans.append(literal.span())
            at = literal.end()
            while at < len(text) and text[at].isspace():
                at += 1
            if at < len(text) and text[at] == ",":
                at += 1
                continue
            break
    return spans


def _english_in_script(text: str) -> list[str]:
    """String literals that read as words for people (two words or more with a capital letter or punctuation, or one
    capitalised word) outside a gettext call. CSS classes and ids (lower case, hyphens) are not words."""
    text = _COMMENT.sub(lambda m: " " * len(m.group(0)), text)
    inside = _translated_spans(text)
    found = []
    for match in _STRING.finditer(text):
        if any(a <= match.start() < b for a, b in inside):
            continue
        if text[match.end():match.end() + 3].lstrip().startswith(":"):  # an object's key ("Accept": ...), not words
            continue
        literal = match.group(1) if match.group(1) is not None else match.group(2)
        words = re.sub(r"\$\{[^}]*\}", " ", literal).strip()
        if words in ("use strict",):
            continue
        sentence = re.search(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}", words) and re.search(r"[A-Z]|[.,:;!?·…]", words)
        if sentence and not re.search(r"[#\[]\w|=>|\w\(|^\.", words):
            found.append(literal)
        elif re.fullmatch(r"[A-Z][a-z]+[.!?…]?", words) and words not in _KEY_NAMES:
            found.append(literal)
    return found


@pytest.mark.parametrize("name", [f for f in _files() if f.endswith(".js") and f not in PENDING])
def test_a_translated_script_has_no_english_outside_gettext(name):
    found = _english_in_script((ROOT / name).read_text())
    assert not found, f"{name}: wrap these in gettext(): {found}"


def test_the_checks_find_english_where_there_is_some():
    assert _english_in_template('<p>Play now</p> <b title="Shown here">{% translate "ok" %}</b>') == [
        "Play now", "Shown here"]
    assert _english_in_template('{% blocktranslate %}Free text{% endblocktranslate %} {{ name }}') == []
    assert _english_in_script('say("The table moved on."); h("b", {}, gettext("Fine words"));') == [
        "The table moved on."]
    assert _english_in_script('el.className = "card big-card"; $("#hand .card"); ngettext("One card", "Two cards", n)') == []


# ---- the catalogues: complete for every string marked in the code ---------------------------------------------------

@pytest.mark.skipif(not shutil.which("xgettext") or not shutil.which("msgfmt"),
                    reason="Debian's gettext is not installed (.ci/run installs it)")
def test_both_catalogues_translate_every_marked_string(tmp_path, settings):
    shutil.copytree(ROOT / "locale", tmp_path / "locale")
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    ignore = [".venv/*", "var/*", "tests/*", "benchmarks/*", "examples/*", "build/*", "*.egg-info/*"]
    import os

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        call_command("makemessages", locale=["ru", "bg"], ignore_patterns=ignore, verbosity=0)
        call_command("makemessages", locale=["ru", "bg"], domain="djangojs", ignore_patterns=ignore, verbosity=0)
    finally:
        os.chdir(cwd)
    behind = []
    for po in sorted((tmp_path / "locale").rglob("*.po")):
        stats = subprocess.run(["msgfmt", "--check", "--statistics", "-o", os.devnull, str(po)],
                               capture_output=True, text=True)
        assert stats.returncode == 0, stats.stderr
        if "untranslated" in stats.stderr or "fuzzy" in stats.stderr:
            text = po.read_text()
            empty = re.findall(r'msgid "((?:[^"\\]|\\.)*)"\nmsgstr ""\n\n', text)
            behind.append(f"{po.relative_to(tmp_path)}: {stats.stderr.strip()} {empty[:8]}")
    assert not behind, ("the catalogues fell behind the code: run `make messages`, translate, and commit "
                        "locale/ (docs/TRANSLATING.md):\n" + "\n".join(behind))
