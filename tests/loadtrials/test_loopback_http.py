"""The load trial's lean HTTP client (``benchmarks/loopback_http.py``) against a real HTTP/1.1 server on loopback:
JSON requests and answers, keep-alive reuse, a chunked answer read line by line, and failures as TransportError."""

import asyncio
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from benchmarks import free_port
from benchmarks.loopback_http import Client, TransportError


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the service's web server

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/lines":  # a server-sent events answer: chunked, lines in pieces across chunks
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in (b"id: 1\nevent: ply\nda", b"ta: {\"ply\": 1}\n\n", b": ping\r\n\r\n"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
            return
        body = json.dumps({"path": self.path, "port": self.client_address[1],
                           "auth": self.headers.get("Authorization")}).encode()
        self.send_response(404 if self.path == "/missing" else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("ETag", '"v1"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        sent = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps({"echo": sent}).encode()
        self.send_response(201)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", free_port()), _Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_json_requests_on_one_kept_connection(server):
    async def main():
        async with Client(server, keepalive_s=5) as client:
            first = await client.request("GET", "/a", headers={"Authorization": "Token t"})
            second = await client.request("POST", "/b", json={"ply": 3, "action": {"type": "draw"}})
            missing = await client.request("GET", "/missing")
            return first, second, missing, client.opened
    first, second, missing, opened = asyncio.run(main())
    assert first.status_code == 200 and first.json()["auth"] == "Token t" and first.headers.get("etag") == '"v1"'
    assert second.status_code == 201 and second.json() == {"echo": {"ply": 3, "action": {"type": "draw"}}}
    assert missing.status_code == 404 and missing.json()["path"] == "/missing"
    assert opened == 1  # one connection served all three


def test_a_chunked_answer_read_line_by_line(server):
    async def main():
        async with Client(server) as client:
            async with client.stream("GET", "/lines", timeout=5) as response:
                lines = [line async for line in response.aiter_lines()]
            after = await client.request("GET", "/after")  # the stream read to its end: its connection is reused
            return response.status_code, lines, client.opened, after.status_code
    status, lines, opened, after = asyncio.run(main())
    assert status == 200 and lines == ["id: 1", "event: ply", 'data: {"ply": 1}', "", ": ping", ""]
    assert opened == 1 and after == 200


def test_no_server_is_a_transport_error():
    async def main():
        async with Client(f"http://127.0.0.1:{free_port()}", timeout=2) as client:
            await client.request("GET", "/")
    with pytest.raises(TransportError, match="cannot connect"):
        asyncio.run(main())
