"""Notifications' pages and API (``games.notices``): the list at ``/notifications/`` with the e-mail opt-in,
the unsubscribe link of every e-mail (no log-in), the bell's count on every page, and ``GET /api/notifications/``
with ``POST /api/notifications/read/``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import DatabaseError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from games.models import Notification, Player
from games.notices import (email_settings, notice_text, notices_for, notices_read, unread_count, unsubscribe,
                           unsubscribe_user)
from sitekit.errors import ErrorOutput
from sitekit.pages import post_only
from sitekit.pagination import BoundedLimitOffsetPagination


def unread_notices(request) -> dict:
    """Context processor: ``unread_notices``, the bell's number for a signed-in person (lazy: one COUNT, only on a
    page that shows it; 0 while the database is away)."""
    from django.utils.functional import SimpleLazyObject

    def count():
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return 0
        try:
            return unread_count(user=user)
        except DatabaseError:
            return 0

    return {"unread_notices": SimpleLazyObject(count)}


@never_cache
@login_required
def notices_page(request):
    """``GET``: the signed-in person's notifications, newest first (unread ones marked), and their e-mail opt-in.
    ``POST``: mark them all read."""
    if request.method == "POST":
        notices_read(user=request.user)
        return redirect("notices")
    rows = notices_for(user=request.user)
    for row in rows:
        row.text = notice_text(row)
    person = Player.objects.filter(user=request.user, kind=Player.Kind.HUMAN).first()
    return render(request, "games/notices.html", {
        "notices": rows, "email": request.user.email,
        "email_on": bool(person and person.email_notifications)})


@login_required
@post_only("notices", say="Use the form on this page to change your e-mail settings.")
def notices_email(request):
    """``POST``: the e-mail address and whether notifications are e-mailed to it (``address``, ``wanted``)."""
    try:
        email_settings(user=request.user, address=request.POST.get("address", ""),
                       wanted=request.POST.get("wanted") == "1")
    except ValueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Saved."))
    return redirect("notices")


@never_cache
def notices_unsubscribe(request, token: str):
    """The link in every e-mail (no log-in): ``GET`` asks to confirm (a mail scanner that follows links changes
    nothing), ``POST`` turns e-mail notifications off. 404 for a token this site did not make."""
    read = unsubscribe if request.method == "POST" else unsubscribe_user
    if read(token=token) is None:
        return render(request, "games/unsubscribe.html", {"bad": True}, status=404)
    return render(request, "games/unsubscribe.html", {"done": True} if request.method == "POST" else {"token": token})


class NoticeOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(Notification.Kind.choices, help_text="what happened")
    text = serializers.SerializerMethodField(help_text="the sentence, in the request's language")
    params = serializers.DictField(help_text="the sentence's values (names, numbers)")
    url = serializers.CharField(help_text="where it leads (a path of this site; may be empty)")
    created_at = serializers.DateTimeField()
    read = serializers.SerializerMethodField()

    def get_text(self, row) -> str:
        return notice_text(row)

    def get_read(self, row) -> bool:
        return row.read_at is not None


class NoticesReadInput(serializers.Serializer):
    ids = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**63 - 1), required=False,
                                max_length=500,
                                help_text="the notifications to mark read; leave it out for all of them")


class NoticesApi(APIView):
    """The signed-in person's notifications, newest first, with the unread count."""

    permission_classes = [IsAuthenticated]
    pagination_class = BoundedLimitOffsetPagination

    @extend_schema(tags=["notifications"], summary="Your notifications, newest first (limit/offset), and how many "
                   "are unread", responses={200: NoticeOutput(many=True),
                                            401: OpenApiResponse(ErrorOutput, description="not logged in")})
    def get(self, request):
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(Notification.objects.filter(user=request.user), request, view=self)
        response = paginator.get_paginated_response(NoticeOutput(page, many=True).data)
        response.data["unread"] = unread_count(user=request.user)
        return response


class NoticesReadApi(APIView):
    """Mark notifications read: ``{"ids": [..]}``, or ``{}`` for all of them."""

    permission_classes = [IsAuthenticated]

    @extend_schema(tags=["notifications"], summary="Mark notifications read", request=NoticesReadInput,
                   responses={200: OpenApiResponse(description="{marked, unread}"),
                              400: OpenApiResponse(ErrorOutput, description="ids is not a list of ids"),
                              401: OpenApiResponse(ErrorOutput, description="not logged in")})
    def post(self, request):
        given = NoticesReadInput(data=request.data)
        given.is_valid(raise_exception=True)
        marked = notices_read(user=request.user, ids=given.validated_data.get("ids"))
        return Response({"marked": marked, "unread": unread_count(user=request.user)})
