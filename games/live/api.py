"""Watching a match: ``GET /api/matches/<id>/public/`` (the public view, ETag and 304) and
``GET /api/matches/<id>/events/`` (server-sent events, one per stored ply), for anyone. docs/LIVE.md.

The stream's core is ``games.live.streams``, the servers' loops around it ``games.live.serving``, the cap on open
streams per address ``games.live.stream_slots``."""

from __future__ import annotations

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connection
from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import APIException, NotFound, PermissionDenied
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from games import live
from games.live.serving import async_events, sync_events
from games.live.stream_slots import StreamSlot
from games.live.streams import END_ID, Stream
from games.models import Match
from sitekit.errors import error_response as _err
from sitekit.ids import parse_id
from sitekit.limits import ScopedRateThrottle, client_address


def _watchable(match_id: int) -> Match:
    """The match row, when it may be watched: 404 for an unknown match, 403 for a hidden duplicate set's match."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise NotFound(f"no match {match_id}")
    try:
        live.check_watchable(match=match)
    except live.MatchHidden as exc:
        raise PermissionDenied(str(exc)) from None
    return match


def _not_modified(request, tag: str) -> bool:
    given = request.headers.get("If-None-Match", "")
    return any(part.strip() in (tag, tag[2:], "*") for part in given.split(",")) if given else False


class MatchPublicApi(APIView):
    """The public view of a match (anyone; docs/LIVE.md): one consistent snapshot, with ``ETag`` on (ply, status):
    ``If-None-Match`` with the tag answers 304 after one small query."""

    permission_classes = [AllowAny]
    authentication_classes = []  # anyone: no session or token is read (nor needed)
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "live_public"

    @extend_schema(summary="A match's public view (anyone may watch)", responses={
        200: OpenApiResponse(description="the public view (docs/LIVE.md)"),
        304: OpenApiResponse(description="not modified since the ETag given in If-None-Match"),
        403: _err("a duplicate set's match: watchable as a replay once its whole set is finished"),
        404: _err("no such match"), 429: _err("too many requests: see Retry-After")})
    def get(self, request, match_id: int):
        progress = live.match_progress(match_id=match_id)
        if progress is None:
            raise NotFound(f"no match {match_id}")
        ply, status, _group = progress
        tag = live.etag(match_id=match_id, ply=ply, status=status)
        match = _watchable(match_id)
        if _not_modified(request, tag):
            return HttpResponse(status=304, headers={"ETag": tag})
        view = live.match_public_view(match=match)
        return Response(view, headers={"ETag": live.etag(match_id=match_id, ply=view["ply"], status=view["status"]),
                                       "Cache-Control": "no-cache"})


class _AnyAccept(DefaultContentNegotiation):
    """A browser's ``EventSource`` sends ``Accept: text/event-stream``, which no DRF renderer offers (406 before the
    view ran): the stream is not rendered by DRF, and its refusals (400/403/404/429) answer JSON whatever the Accept."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class UnknownEventId(APIException):
    status_code = 400
    default_code = "unknown_event_id"


class MatchEventsApi(APIView):
    """Server-sent events of a match (anyone; docs/LIVE.md): ``event: ply`` per stored ply (``id``: the ply count
    after it), ``event: end`` when it is over, ``: ping`` every ``LIVE_KEEPALIVE_SECONDS``. ``Last-Event-ID`` (or
    ``?last_event_id=``) resumes after that ply from the database, with no gap; without one the stream starts at the
    current ply (fetch the public view first and pass its ``ply``). The end event's id is ``end``: a reconnect with
    it is answered 204 No Content (an ``EventSource`` stops)."""

    permission_classes = [AllowAny]
    authentication_classes = []
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "live_events"
    renderer_classes = [JSONRenderer]
    content_negotiation_class = _AnyAccept

    @extend_schema(summary="A match's stored plies as server-sent events (anyone may watch)", parameters=[
        OpenApiParameter("last_event_id", {"type": "string", "pattern": "^([0-9]+|end)$"}, description=(
            "resume after this ply count (as the Last-Event-ID header); default: the current ply count. `end` (the "
            "end event's id): the client saw the end, answered 204"))],
        responses={200: OpenApiResponse(description="text/event-stream (docs/LIVE.md)"),
                   204: OpenApiResponse(description="the match is over and last_event_id is `end`: nothing more "
                                                    "will come (an EventSource stops reconnecting)"),
                   400: _err("unknown_event_id: a last_event_id (or Last-Event-ID) that is not a ply count of this "
                             "match (0 to its ply count)"),
                   403: _err("a duplicate set's match: watchable as a replay once its whole set is finished"),
                   404: _err("no such match"), 429: _err("too many requests (stream openings per minute, or "
                                                         "too_many_streams: LIVE_STREAMS_PER_ADDRESS open streams "
                                                         "of this address): see Retry-After")})
    def get(self, request, match_id: int):
        match = _watchable(match_id)
        given = request.headers.get("Last-Event-ID") or request.query_params.get("last_event_id")
        current = match.ply_count
        if given == END_ID and match.status != Match.Status.RUNNING:
            return HttpResponse(status=204)  # it saw the end: nothing more will come, and EventSource stops on 204
        if given is None or given == "":
            last = current
        else:
            last = parse_id(given)  # ASCII digits only (int() would take "٣" or " 3 ")
            if last is None or not 0 <= last <= current:
                raise UnknownEventId(f"last_event_id {given!r:.30} is not a ply count of match {match_id}: give a "
                                     f"number from 0 to {current} (the id of the last event you received, or the "
                                     "public view's ply), or end once the match is over")
        stream = Stream(match, last)
        slot = StreamSlot(client_address(request))
        slot.take()  # 429 past LIVE_STREAMS_PER_ADDRESS open streams of this address
        is_async = isinstance(request._request, ASGIRequest)
        if is_async and not settings.DATABASES["default"].get("CONN_MAX_AGE"):
            connection.close()  # the request's thread ends with the view: hold no connection for the stream's life
        content = async_events(stream, slot) if is_async else sync_events(stream, slot)
        response = StreamingHttpResponse(content, content_type="text/event-stream")
        response._resource_closers.append(slot.release)  # also when the stream never started
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # a proxy (nginx) must pass each event on at once
        return response

    def finalize_response(self, request, response, *args, **kwargs):
        if isinstance(response, StreamingHttpResponse):
            return response  # not a DRF Response: no renderer, no content negotiation
        return super().finalize_response(request, response, *args, **kwargs)
