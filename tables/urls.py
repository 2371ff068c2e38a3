"""Tables' routes: the lobby and a table's invite page with its buttons (pages), and their API (under /api/)."""

from django.urls import path

from tables import api, views

page_patterns = [
    path("tables/", views.lobby, name="table-lobby"),
    path("tables/new/", views.table_new, name="table-new"),
    path("tables/challenge/", views.challenge_page, name="challenge"),
    path("tables/<str:code>/", views.table_detail, name="table-detail"),
    path("tables/<str:code>/join/", views.table_join, name="table-join"),
    path("tables/<str:code>/start/", views.table_start, name="table-start"),
    path("tables/<str:code>/leave/", views.table_leave, name="table-leave"),
    path("tables/<str:code>/cancel/", views.table_cancel, name="table-cancel"),
    path("tables/<str:code>/rematch/", views.table_rematch, name="table-rematch"),
    path("tables/<str:code>/decline/", views.table_decline, name="table-decline"),
]

api_patterns = [
    path("tables/", api.TableListApi.as_view(), name="api-table-list"),
    path("tables/<str:code>/", api.TableDetailApi.as_view(), name="api-table-detail"),
    path("tables/<str:code>/join/", api.TableJoinApi.as_view(), name="api-table-join"),
    path("tables/<str:code>/start/", api.TableStartApi.as_view(), name="api-table-start"),
    path("tables/<str:code>/leave/", api.TableLeaveApi.as_view(), name="api-table-leave"),
    path("tables/<str:code>/cancel/", api.TableCancelApi.as_view(), name="api-table-cancel"),
    path("tables/<str:code>/rematch/", api.TableRematchApi.as_view(), name="api-table-rematch"),
    path("tables/<str:code>/decline/", api.TableDeclineApi.as_view(), name="api-table-decline"),
    path("challenges/", api.ChallengeApi.as_view(), name="api-challenges"),
]
