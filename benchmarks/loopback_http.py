"""A lean HTTP/1.1 client for load trials on loopback: keep-alive connections to one server over asyncio streams.

Why: a load trial's generator shares the machine with the servers it measures. With httpx (h11 and anyio underneath)
``people_load.py`` took 3-10 ms of CPU per person move at 200 people, a quarter to 40 % of the CPU used on this 2-core
machine, and the servers got what was left; this client takes about 0.7 ms (BENCHMARKS.md, "Speed for people",
round 4). It does only what the trial needs (JSON requests, ``Content-Length`` and chunked
answers, a streamed answer read line by line for server-sent events) in a few function calls per request.

The interface is the slice of httpx's ``AsyncClient`` the trial uses: ``await client.request(method, url,
headers=..., json=...)`` and ``async with client.stream(method, url, headers=..., timeout=...) as response`` with
``response.status_code``, ``.headers.get(name)`` (any case), ``.text``, ``.json()``, ``await .aread()`` and ``async
for line in .aiter_lines()``. Failures raise :class:`TransportError` (connection refused or reset, a malformed
answer, a timeout). Nothing is retried: a request either got an answer or is reported as a transport error.
"""

from __future__ import annotations

import asyncio
import json as jsonlib
import time
from contextlib import asynccontextmanager
from urllib.parse import urlsplit


class TransportError(Exception):
    """The request got no complete answer: refused, reset, closed early, malformed, or past its timeout."""


class Headers(dict):
    """An answer's headers, keyed by lower-case name (the last value of a repeated header wins)."""

    def get(self, name: str, default=None):
        return super().get(name.lower(), default)


class Response:
    """An answer: ``status_code``, ``headers``, and the body (whole, or streamed by ``aiter_lines``)."""

    def __init__(self, status_code: int, headers: Headers, body: bytes = b"", reader=None, chunked=False,
                 length: int | None = None, read_timeout: float = 60) -> None:
        self.status_code, self.headers, self.content = status_code, headers, body
        self._reader, self._chunked, self._length, self._read_timeout = reader, chunked, length, read_timeout
        self.complete = reader is None  # the body was read to its end (the connection can serve another request)

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", "replace")

    def json(self):
        return jsonlib.loads(self.content)

    async def aread(self) -> bytes:
        """The rest of a streamed body (at most what the answer announces)."""
        parts = [self.content]
        async for block in self._blocks():
            parts.append(block)
        self.content = b"".join(parts)
        return self.content

    async def aiter_lines(self):
        """The streamed body's lines without their ending (``\\n``, ``\\r\\n``)."""
        pending = b""
        async for block in self._blocks():
            pending += block
            *lines, pending = pending.split(b"\n")
            for line in lines:
                yield line.rstrip(b"\r").decode("utf-8", "replace")
        if pending:
            yield pending.rstrip(b"\r").decode("utf-8", "replace")

    async def _blocks(self):
        if self._reader is None:
            return
        reader, timeout = self._reader, self._read_timeout
        try:
            if self._chunked:
                while True:
                    size_line = await asyncio.wait_for(reader.readline(), timeout)
                    size = int(size_line.split(b";", 1)[0].strip() or b"x", 16)
                    if size == 0:
                        await asyncio.wait_for(reader.readuntil(b"\r\n"), timeout)  # no trailers are sent
                        break
                    block = await asyncio.wait_for(reader.readexactly(size + 2), timeout)
                    yield block[:-2]
            elif self._length is not None:
                left = self._length
                while left > 0:
                    block = await asyncio.wait_for(reader.read(min(left, 65536)), timeout)
                    if not block:
                        raise TransportError("the connection closed inside the body")
                    left -= len(block)
                    yield block
            else:  # the body runs to the connection's end
                while block := await asyncio.wait_for(reader.read(65536), timeout):
                    yield block
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                asyncio.TimeoutError) as exc:
            raise TransportError(f"reading the body: {exc!r}") from exc
        self.complete = True
        self._reader = None


class Client:
    """Keep-alive HTTP/1.1 connections to ``base_url`` (``http://host:port``), each used by one request at a time.

    ``keepalive_s``: an idle connection older than this is closed rather than reused (the server may be closing
    it); ``timeout``: seconds for a whole request, or for each read of a streamed body.
    """

    errors = (TransportError,)

    def __init__(self, base_url: str, timeout: float = 30, keepalive_s: float = 1.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"an http://host:port address is needed, not {base_url!r}")
        self.host, self.port = parts.hostname, parts.port or 80
        self.timeout, self.keepalive_s = timeout, keepalive_s
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter, float]] = []
        self.opened = 0  # connections opened so far (a reused one is not counted)

    async def __aenter__(self) -> Client:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        idle, self._idle = self._idle, []
        for _, writer, _ in idle:
            writer.close()

    async def request(self, method: str, url: str, headers: dict | None = None, json=None) -> Response:
        """Send one request and read its whole answer (``timeout`` s for all of it)."""
        try:
            return await asyncio.wait_for(self._exchange(method, url, headers, json, stream=False), self.timeout)
        except asyncio.TimeoutError as exc:
            raise TransportError(f"no answer to {method} {url} within {self.timeout} s") from exc

    async def options(self, url: str) -> Response:
        return await self.request("OPTIONS", url)

    @asynccontextmanager
    async def stream(self, method: str, url: str, headers: dict | None = None, timeout: float | None = None):
        """Send one request and yield its answer once the head is read; the body is read by the caller."""
        read_timeout = timeout if isinstance(timeout, (int, float)) else self.timeout
        try:
            response = await asyncio.wait_for(self._exchange(method, url, headers, None, stream=True,
                                                             read_timeout=read_timeout), self.timeout)
        except asyncio.TimeoutError as exc:
            raise TransportError(f"no answer to {method} {url} within {self.timeout} s") from exc
        try:
            yield response
        finally:
            connection = response.connection
            if response.complete and connection is not None and not response.close_after:
                self._idle.append((*connection, time.monotonic()))
            elif connection is not None:
                connection[1].close()

    async def _connection(self):
        now = time.monotonic()
        while self._idle:
            reader, writer, since = self._idle.pop()
            if now - since < self.keepalive_s and not reader.at_eof() and not writer.is_closing():
                return reader, writer
            writer.close()
        self.opened += 1
        try:
            return await asyncio.open_connection(self.host, self.port, limit=1 << 20)
        except OSError as exc:
            raise TransportError(f"cannot connect to {self.host}:{self.port}: {exc!r}") from exc

    async def _exchange(self, method, url, headers, json, stream: bool, read_timeout: float = 60) -> Response:
        reader, writer = await self._connection()
        body = b"" if json is None else jsonlib.dumps(json).encode()
        head = [f"{method} {url} HTTP/1.1", f"Host: {self.host}:{self.port}", "Accept-Encoding: identity"]
        if json is not None:
            head.append("Content-Type: application/json")
        if body or method in ("POST", "PUT", "PATCH"):
            head.append(f"Content-Length: {len(body)}")
        head.extend(f"{name}: {value}" for name, value in (headers or {}).items())
        try:
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
            await writer.drain()
            raw = await reader.readuntil(b"\r\n\r\n")
            lines = raw[:-4].decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ", 2)[1])
            answer = Headers()
            for line in lines[1:]:
                name, _, value = line.partition(":")
                answer[name.strip().lower()] = value.strip()
            chunked = "chunked" in answer.get("transfer-encoding", "").lower()
            length = None if chunked or "content-length" not in answer else int(answer["content-length"])
            if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
                length, chunked = 0, False
            response = Response(status, answer, reader=reader, chunked=chunked, length=length,
                                read_timeout=read_timeout)
            response.connection = (reader, writer)
            response.close_after = (answer.get("connection", "").lower() == "close"
                                    or (length is None and not chunked))
            if stream:
                return response
            await response.aread()
        except (OSError, ValueError, IndexError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as exc:
            writer.close()
            raise TransportError(f"{method} {url}: {exc!r}") from exc
        except BaseException:
            writer.close()  # cancelled or timed out half way: the connection's state is unknown
            raise
        if response.close_after:
            writer.close()
        else:
            self._idle.append((reader, writer, time.monotonic()))
        return response
