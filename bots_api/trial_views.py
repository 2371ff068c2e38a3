"""The trial page (``/trials/<id>/``, owner only; another owner's trial is a 404 like a missing one): the trial's
settings, its results as they come in (each match with its replay once public), the summary with its intervals and,
on the same seeds as an earlier trial of the bot, the comparison. Reads only (``bots_api.trials``)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache

from bots_api import trials
from bots_api.models import TrialMatch


@never_cache
@login_required
def trial_detail(request, trial_id: int):
    trial = trials.access_trial(user=request.user, trial_id=trial_id)
    return render(request, "bots_api/trial_detail.html", {"trial": trial, "t": trials.trial_detail(trial=trial)})


def trial_match_page_extras(match) -> dict:
    """The match page's note on a trial's match (registered into ``games.hooks.MATCH_PAGE_EXTRAS``): that it is an
    unrated test run of which bot; the trial's link is drawn for the trial's owner only (it answers nobody else)."""
    entry = TrialMatch.objects.filter(match_id=match.pk).select_related("trial__bot__player").first()
    if entry is None:
        return {}
    return {"match_page_include": "bots_api/trial_match_note.html", "trial_match_bot": entry.trial.bot.player.name,
            "trial_match_duplicate": entry.trial.duplicate,
            "trial_match_url": reverse("trial-detail", args=[entry.trial_id]),
            "trial_match_owner_id": entry.trial.owner_id}
