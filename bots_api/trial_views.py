"""The trial page (``/trials/<id>/``, owner only; another owner's trial is a 404 like a missing one): the trial's
settings, its results as they come in (each match with its replay once public), the summary with its intervals and,
on the same seeds as an earlier trial of the bot, the comparison. Reads only (``bots_api.trials``)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from bots_api import trials


@never_cache
@login_required
def trial_detail(request, trial_id: int):
    trial = trials.access_trial(user=request.user, trial_id=trial_id)
    return render(request, "bots_api/trial_detail.html", {"trial": trial, "t": trials.trial_detail(trial=trial)})
