from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games.signals import match_finished
        from tournaments import services

        match_finished.connect(services.on_match_finished, dispatch_uid="tournaments-ratings")
        from tournaments import tournament_services

        match_finished.connect(tournament_services.on_match_finished, dispatch_uid="tournaments-rounds")
        from games.views import MATCH_PAGE_EXTRAS
        from tournaments.views import match_page_extras

        if match_page_extras not in MATCH_PAGE_EXTRAS:
            MATCH_PAGE_EXTRAS.append(match_page_extras)
        from games.browse import MatchGroup, register_match_group
        from tournaments.selectors import ladder_matches_q, tournament_matches_q

        # the match list's ?ladder= and ?tournament= filters
        register_match_group("ladder", MatchGroup(help="only matches of this ladder (its slug)",
                                                  lookup=ladder_matches_q))
        register_match_group("tournament", MatchGroup(help="only matches of this tournament (its slug or id)",
                                                      lookup=tournament_matches_q))
