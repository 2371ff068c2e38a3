"""The ASGI application: the production web server (gunicorn with uvicorn workers, Procfile, docs/LIVE.md) serves
the site and holds the open event streams (``GET /api/matches/<id>/events/``) without a thread each."""

import os
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

#: Request threads kept for reuse per process: more requests at once than this start threads of their own, which
#: end with their request.
KEPT_REQUEST_THREADS = 64


class ReusedRequestThreads:
    """ASGI middleware: every HTTP request's synchronous code (Django's middleware, the views, the ORM) runs on one
    thread of its own, as Django's ASGI handler arranges (asgiref's ``ThreadSensitiveContext``), but on a thread
    kept from an earlier request rather than one started for it. Django starts two threads per request (its
    thread, and another to join it at the end): about 1.1 ms of CPU and 4 ms of wall time a request on this machine
    (BENCHMARKS.md, "Speed for people", round 3), as much as the ORM work of a person's move.

    Each request gets a single-thread executor of its own for its whole life (asgiref's ``ThreadSensitiveContext``
    with ``executor=``, the outermost context, so Django's own becomes a no-op), so one request's thread-sensitive
    code never shares a thread with another request's at the same time, as under a threaded WSGI server. A request
    that ends normally gives its executor back for the next one (at most ``KEPT_REQUEST_THREADS`` kept); one that
    ends by an exception or cancellation (a client gone mid-request) shuts its executor down without waiting, so
    a call still running there finishes on a thread nobody else is given. Other scopes (lifespan) pass through.
    """

    def __init__(self, app, *, keep: int = KEPT_REQUEST_THREADS):
        self.app, self.keep = app, keep
        self.idle: list[ThreadPoolExecutor] = []

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        executor = self.idle.pop() if self.idle else ThreadPoolExecutor(max_workers=1,
                                                                        thread_name_prefix="request")
        ok = False
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.app(scope, receive, send)
            ok = True
        finally:
            if ok and len(self.idle) < self.keep:
                self.idle.append(executor)
            else:
                executor.shutdown(wait=False)


class OneHopASGIHandler(ASGIHandler):
    """Django's ASGI handler with the middleware chain loaded for synchronous use and run in one hop to the
    request's thread: every middleware here is synchronous or both, and every view is synchronous, so Django's
    asynchronous chain went to the thread for the outer middleware, back to the event loop at the first middleware
    that is synchronous only (``RefuseNulMiddleware``), and to the thread again for the view: three hops where one
    does (each a future, a lock and two wake-ups; BENCHMARKS.md, "Speed for people", round 4). What the chain does
    is unchanged (``BaseHandler.get_response``: the same middleware in the same order, the error log of a 4xx/5xx);
    a streamed answer (the event streams, an asynchronous iterator) is still read on the event loop by
    ``ASGIHandler.send_response``."""

    def __init__(self):
        BaseHandler.__init__(self)
        self.load_middleware(is_async=False)

    async def get_response_async(self, request):
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)


def _application():
    django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application
    return ReusedRequestThreads(OneHopASGIHandler())


application = _application()
