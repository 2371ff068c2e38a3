"""The ASGI application keeps request threads for reuse (``config.asgi.ReusedRequestThreads``, issue 25): a request's
synchronous code runs on one thread of its own, as under Django's handler, but on a thread kept from an earlier
request; requests at once never share one; a request that fails or is cancelled does not give its thread back."""

import asyncio
import threading

import pytest
from asgiref.sync import sync_to_async

from config.asgi import ReusedRequestThreads


def _app(log: list, *, fail: bool = False, hold: asyncio.Event | None = None):
    """An ASGI app whose requests make two thread-sensitive calls (Django's are thread-sensitive) and log the threads
    they ran on: (request number, [thread ids])."""
    async def app(scope, receive, send):
        ident = sync_to_async(threading.get_ident)  # thread_sensitive=True, the default, as Django's adapters
        first = await ident()
        if hold is not None:
            await hold.wait()
        second = await ident()
        log.append((scope["n"], [first, second]))
        if fail:
            raise RuntimeError("the view failed")
    return app


def _request(wrapper, n: int):
    return wrapper({"type": "http", "n": n}, None, None)


def test_one_request_after_another_runs_on_the_same_kept_thread():
    log = []
    wrapper = ReusedRequestThreads(_app(log))

    async def main():
        for n in range(3):
            await _request(wrapper, n)
    asyncio.run(main())
    threads = {t for _, pair in log for t in pair}
    assert len(threads) == 1 and threading.get_ident() not in threads  # one kept thread, not the loop's
    assert all(pair[0] == pair[1] for _, pair in log)  # each request's calls on one thread
    assert len(wrapper.idle) == 1


def test_requests_at_once_each_have_their_own_thread():
    log = []
    hold = asyncio.Event()
    wrapper = ReusedRequestThreads(_app(log, hold=hold))

    async def main():
        tasks = [asyncio.create_task(_request(wrapper, n)) for n in range(4)]
        await asyncio.sleep(0.2)
        hold.set()
        await asyncio.gather(*tasks)
    asyncio.run(main())
    assert all(pair[0] == pair[1] for _, pair in log)
    assert len({pair[0] for _, pair in log}) == 4  # never two requests on one thread at once
    assert len(wrapper.idle) == 4


def test_a_failed_or_cancelled_request_does_not_give_its_thread_back():
    log = []
    failing = ReusedRequestThreads(_app(log, fail=True))
    with pytest.raises(RuntimeError):
        asyncio.run(_request(failing, 0))
    assert failing.idle == []

    hold = asyncio.Event()
    held = ReusedRequestThreads(_app(log, hold=hold))

    async def cancel():
        task = asyncio.create_task(_request(held, 1))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    asyncio.run(cancel())
    assert held.idle == []


def test_the_kept_threads_are_bounded():
    log = []
    hold = asyncio.Event()
    wrapper = ReusedRequestThreads(_app(log, hold=hold), keep=2)

    async def main():
        tasks = [asyncio.create_task(_request(wrapper, n)) for n in range(5)]
        await asyncio.sleep(0.2)
        hold.set()
        await asyncio.gather(*tasks)
    asyncio.run(main())
    assert len(log) == 5 and len(wrapper.idle) == 2


def test_other_scopes_pass_through():
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])
    wrapper = ReusedRequestThreads(app)
    asyncio.run(wrapper({"type": "lifespan"}, None, None))
    assert seen == ["lifespan"] and wrapper.idle == []


def _asgi_get(app, path: str, headers=()) -> tuple[int, dict, bytes]:
    """One GET through an ASGI app: (status, headers without the per-response ones, body)."""
    sent = []

    async def main():
        received = []

        async def receive():
            received.append(1)
            if len(received) == 1:
                return {"type": "http.request", "body": b"", "more_body": False}
            await asyncio.Event().wait()

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                 "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
                 "headers": [(b"host", b"localhost"), *headers], "client": ("127.0.0.1", 1),
                 "server": ("127.0.0.1", 80)}
        await app(scope, receive, send)
    asyncio.run(main())
    start = sent[0]
    heads = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    for per_response in ("content-security-policy", "set-cookie", "date"):  # nonces, CSRF tokens
        heads.pop(per_response, None)
    return start["status"], heads, b"".join(m.get("body", b"") for m in sent[1:])


@pytest.mark.django_db(transaction=True)
def test_the_one_hop_handler_answers_as_djangos_own(settings):
    """config.asgi.OneHopASGIHandler loads the middleware chain for synchronous use (one hop to the request's
    thread, not three) and answers what Django's stock ASGI handler answers, status, headers and bytes."""
    from asgiref.sync import iscoroutinefunction
    from django.core.handlers.asgi import ASGIHandler

    from config.asgi import OneHopASGIHandler, application

    settings.ALLOWED_HOSTS = ["localhost"]
    ours, stock = application.app, ASGIHandler()
    assert isinstance(ours, OneHopASGIHandler)
    assert not iscoroutinefunction(ours._middleware_chain)  # the chain runs in the request's thread
    assert iscoroutinefunction(stock._middleware_chain)  # (a SyncToAsync: the hop there and back)
    for path, status in (("/api/", None), ("/api/no-such-thing/", 404), ("/api/matches/1/seats/0/", 401),
                         ("/api/ladders/", 200), ("/api/schema/", 200)):
        mine = _asgi_get(ReusedRequestThreads(ours), path)
        theirs = _asgi_get(ReusedRequestThreads(stock), path)
        assert mine == theirs, path
        assert status is None or mine[0] == status, (path, mine[0])
