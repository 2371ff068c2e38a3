"""The trials API (``bots_api.trials``; docs/TRIALS.md): start an unrated test run of your bot, list its runs, read
one with its results, summary and comparison. Owner only: another owner's bot or trial answers 404 like a missing
one. Thin adapters: the service checks every field of the body and says what would be right."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from bots_api import trials
from bots_api.api import _AUTH, _ERR, _NOT_YOURS, OwnerApi
from sitekit.errors import ErrorOutput, refuse_unknown_fields
from sitekit.pagination import BoundedLimitOffsetPagination

#: the fields of a trial request; any other is refused (a typo such as "seed" must not pass silently)
FIELDS = ("opponents", "matches", "preset", "ladder", "seeds", "duplicate")


class TrialSummaryOutput(serializers.Serializer):
    finished = serializers.IntegerField(help_text="finished matches (the summary counts these only)")
    aborted = serializers.IntegerField(help_text="aborted matches (our failures; left out of the summary)")
    running = serializers.IntegerField(help_text="matches still running or waiting their turn")
    wins = serializers.IntegerField(help_text="finished matches in which the bot's seat took place 1 (shared "
                                              "first places count; under partnership the side's place)")
    win_rate = serializers.FloatField(allow_null=True)
    win_rate_ci95 = serializers.ListField(child=serializers.FloatField(), allow_null=True,
                                          help_text="[low, high]: the 95 % Wilson score interval of the win rate")
    deals = serializers.IntegerField(help_text="finished deals of the finished matches")
    mean_points_per_deal = serializers.FloatField(allow_null=True, help_text="the bot's seat's points per deal")
    mean_points_per_deal_ci95 = serializers.ListField(
        child=serializers.FloatField(), allow_null=True,
        help_text="[low, high]: mean +- 1.96 s / sqrt(n) over the deals (null below 2 deals)")
    lower_points_are_better = serializers.BooleanField(help_text="true under penalty scoring")


class TrialResultOutput(serializers.Serializer):
    number = serializers.IntegerField(help_text="the match's place in the trial, from 0 (the trial page shows it "
                                                "from 1)")
    match_id = serializers.IntegerField()
    status = serializers.CharField(help_text="running, finished or aborted")
    waiting = serializers.BooleanField(help_text="running, but waiting for the match before it to end")
    rotation = serializers.IntegerField(allow_null=True, help_text="duplicate trials: the seating of its seed's set")
    seed = serializers.IntegerField(allow_null=True, help_text="the match seed: yours (a fixed seed set) or, for "
                                                               "random seeds, once the match is public")
    bot_seat = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField(), help_text="player names by seat")
    bot_total = serializers.IntegerField(allow_null=True)
    bot_place = serializers.IntegerField(allow_null=True)
    forfeited = serializers.BooleanField()
    win = serializers.BooleanField(allow_null=True)
    deals = serializers.IntegerField(help_text="finished deals")
    points = serializers.ListField(child=serializers.IntegerField(), help_text="the bot's points per finished deal")
    match_url = serializers.CharField()
    replay_url = serializers.CharField(allow_null=True, help_text="once the match is public")


class TrialComparedMatchOutput(serializers.Serializer):
    number = serializers.IntegerField()
    seed = serializers.IntegerField(allow_null=True)
    bot_seat = serializers.IntegerField()
    this_place = serializers.IntegerField(allow_null=True)
    this_total = serializers.IntegerField(allow_null=True)
    last_place = serializers.IntegerField(allow_null=True)
    last_total = serializers.IntegerField(allow_null=True)
    last_match_id = serializers.IntegerField(allow_null=True)


class TrialComparisonOutput(serializers.Serializer):
    trial_id = serializers.IntegerField(help_text="the previous trial of this bot on the same seeds and set-up")
    bot_version = serializers.CharField()
    url = serializers.CharField()
    summary = TrialSummaryOutput()
    matches = TrialComparedMatchOutput(many=True)


class TrialOverviewOutput(serializers.Serializer):
    id = serializers.IntegerField()
    bot_id = serializers.IntegerField()
    bot = serializers.CharField(help_text="the bot's name")
    bot_version = serializers.CharField(help_text="the version the bot said it runs when its matches in this trial "
                                        "started (comma-separated if it changed); before the first, its last check's")
    created_at = serializers.DateTimeField()
    status = serializers.CharField(help_text="running or finished")
    preset = serializers.CharField()
    ladder = serializers.CharField(allow_null=True, help_text="the ladder whose rules were used (never rated)")
    seats = serializers.IntegerField()
    opponents = serializers.ListField(child=serializers.CharField())
    matches = serializers.IntegerField()
    duplicate = serializers.BooleanField()
    seeds = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    url = serializers.CharField(help_text="the trial's page")
    summary = TrialSummaryOutput()


class TrialOutput(TrialOverviewOutput):
    results = TrialResultOutput(many=True)
    comparison = TrialComparisonOutput(allow_null=True)


class BotTrialListApi(OwnerApi):
    """Your bot's trials (GET, newest first) and a new one (POST)."""

    pagination_class = BoundedLimitOffsetPagination

    @extend_schema_serializer(component_name="TrialRequest")
    class Input(serializers.Serializer):
        opponents = serializers.ListField(
            child=serializers.CharField(trim_whitespace=False), min_length=1, max_length=7,
            help_text='e.g. ["house:heuristic"]: house:STRATEGY (random, eager, greedy, heuristic, tactician, expert), a '
                      "house bot's name, your other bots, or bots that accept challenges")
        matches = serializers.IntegerField(required=False, min_value=1,
                                           help_text="1 to TRIAL_MAX_MATCHES; with seeds it may be left out")
        preset = serializers.CharField(required=False, help_text="a ruleset preset (default pagat)")
        ladder = serializers.CharField(required=False, help_text="or a ladder's slug: its rules (never rated there)")
        seeds = serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=trials.SEED_MAX),
                                      required=False, allow_null=True, min_length=1,
                                      help_text="a fixed seed set (distinct): one match per seed (per seat with "
                                                "duplicate), so two runs deal the same cards")
        duplicate = serializers.BooleanField(required=False, default=False,
                                             help_text="play each seed once from each seat, one after another")

    @extend_schema(tags=["trials"], responses={200: TrialOverviewOutput(many=True), 404: _NOT_YOURS, **_AUTH},
                   summary="Your bot's trials, newest first")
    def get(self, request, bot_id: int):
        bot = self.bot(bot_id)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(trials.trial_list(bot=bot), request, view=self)
        return paginator.get_paginated_response(
            TrialOverviewOutput([trials.trial_overview(trial=t) for t in page], many=True).data)

    @extend_schema(tags=["trials"], request=Input,
                   responses={201: TrialOutput, 400: _ERR, 404: _NOT_YOURS, 409: _ERR, **_AUTH},
                   summary="Start an unrated trial of your bot (never rated; limits per owner)")
    def post(self, request, bot_id: int):
        bot = self.bot(bot_id)
        data = request.data
        if not isinstance(data, dict):
            raise trials.TrialError("invalid_body", 'the body is a JSON object, e.g. {"opponents": '
                                    '["house:heuristic"], "matches": 20, "seeds": [1, 2, 3]}')
        refuse_unknown_fields(data, FIELDS, "a trial")
        trial = trials.trial_create(bot=bot, **{k: data[k] for k in FIELDS if k in data})
        return Response(TrialOutput(trials.trial_detail(trial=trial)).data, status=status.HTTP_201_CREATED,
                        headers={"Location": reverse("api-trial", args=[trial.pk])})


class TrialDetailApi(OwnerApi):
    """One of your trials: its results as they come in, the summary and, on the same seeds as an earlier trial of
    the bot, that trial side by side."""

    @extend_schema(tags=["trials"], responses={200: TrialOutput, 404: OpenApiResponse(
        ErrorOutput, description="no such trial among yours (another owner's looks the same)"), **_AUTH},
                   summary="A trial: results, summary with 95 % intervals, comparison with the last run")
    def get(self, request, trial_id: int):
        trial = trials.access_trial(user=request.user, trial_id=trial_id)
        return Response(TrialOutput(trials.trial_detail(trial=trial)).data)
