"""Tournaments' routes: the home page, ladders, Play now, watching and tournaments (pages), and their API (included
under /api/)."""

from django.urls import path
from django.views.generic import RedirectView

from tournaments import ladder_api, play_now_api, tournament_api, tournament_views, views

page_patterns = [
    path("", views.home, name="home"),
    path("play/guest/", views.guest_deal_page, name="guest-deal"),
    path("watch/", views.watch_featured, name="watch-featured"),
    path("ladders/", RedirectView.as_view(url="/#ladders"), name="ladder-list"),  # the ladders are on the home page
    path("ladders/<slug:slug>/", views.ladder_detail, name="ladder-detail"),
    path("ladders/<slug:slug>/rules/", views.ladder_rules, name="ladder-rules"),
    path("ladders/<slug:slug>/seasons/", views.ladder_seasons, name="ladder-seasons"),
    path("ladders/<slug:slug>/seasons/<int:number>/", views.ladder_season, name="ladder-season"),
    path("ladders/<slug:slug>/play/", views.ladder_play_now_page, name="ladder-play-now"),
    path("ladders/<slug:slug>/entries/<int:entry_id>/", views.ladder_entry, name="ladder-entry"),
    path("ladders/<slug:slug>/duplicates/<int:set_id>/", views.duplicate_set_detail, name="duplicate-set"),
    path("tournaments/", tournament_views.tournament_list, name="tournament-list"),
    path("tournaments/new/", tournament_views.tournament_new_page, name="tournament-new"),
    path("tournaments/<int:tournament_id>/", tournament_views.tournament_detail, name="tournament-detail"),
    path("tournaments/<int:tournament_id>/rounds/<int:number>/", tournament_views.tournament_round,
         name="tournament-round"),
    path("tournaments/<int:tournament_id>/enter/", tournament_views.tournament_enter_page, name="tournament-enter"),
    path("tournaments/<int:tournament_id>/enter-house/", tournament_views.tournament_enter_house_page,
         name="tournament-enter-house"),
    path("tournaments/<int:tournament_id>/withdraw/", tournament_views.tournament_withdraw_page,
         name="tournament-withdraw"),
    path("tournaments/<int:tournament_id>/start/", tournament_views.tournament_start_page, name="tournament-start"),
]

api_patterns = [
    path("ladders/", ladder_api.LadderListApi.as_view(), name="api-ladder-list"),
    path("ladders/<slug:slug>/", ladder_api.LadderDetailApi.as_view(), name="api-ladder-detail"),
    path("ladders/<slug:slug>/play/", play_now_api.PlayNowApi.as_view(), name="api-play-now"),
    path("ladders/<slug:slug>/seasons/", ladder_api.LadderSeasonsApi.as_view(), name="api-ladder-seasons"),
    path("ladders/<slug:slug>/seasons/<int:number>/", ladder_api.LadderSeasonApi.as_view(), name="api-ladder-season"),
    path("tournaments/", tournament_api.TournamentListApi.as_view(), name="api-tournament-list"),
    path("tournaments/<int:tournament_id>/", tournament_api.TournamentDetailApi.as_view(),
         name="api-tournament-detail"),
    path("tournaments/<int:tournament_id>/entries/", tournament_api.EntryApi.as_view(), name="api-tournament-entries"),
    path("tournaments/<int:tournament_id>/entries/<int:player_id>/", tournament_api.EntryDetailApi.as_view(),
         name="api-tournament-entry"),
    path("tournaments/<int:tournament_id>/start/", tournament_api.StartApi.as_view(), name="api-tournament-start"),
]
