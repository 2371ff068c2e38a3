from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Plug into games (``games.hooks``): ratings and tournament rounds on a match's end, rating changes on the
        match page, the match list's ``?ladder=`` and ``?tournament=`` filters."""
        from games import hooks
        from tournaments import services, tournament_services
        from tournaments.selectors import ladder_matches_q, tournament_matches_q
        from tournaments.views import match_page_extras

        hooks.match_finished.connect(services.on_match_finished, dispatch_uid="tournaments-ratings")
        hooks.match_finished.connect(tournament_services.on_match_finished, dispatch_uid="tournaments-rounds")
        hooks.register_match_page_extra(match_page_extras)
        hooks.register_match_group("ladder", hooks.MatchGroup(help="only matches of this ladder (its slug)",
                                                              lookup=ladder_matches_q))
        hooks.register_match_group("tournament", hooks.MatchGroup(
            help="only matches of this tournament (its slug or id)", lookup=tournament_matches_q))
