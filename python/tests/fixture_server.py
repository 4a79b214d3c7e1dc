"""A local HTTP server that replays provider replies, for tests of real models.

Replies are fixture files under ``fixtures/`` (each says which published API
reference its shape comes from) or plain dicts, queued in order; every
request is recorded with its path, headers and JSON body. Running it as a
script serves fixtures named on the command line and prints its URL, so a
child process (a docs example) can talk to it.
"""

from __future__ import annotations

import json
import struct
import sys
import threading
import zlib
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def fixture(name: str) -> dict[str, Any]:
    """A reply from fixtures/: ``{"status", "headers"?, "body"}``."""
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


def eventstream_frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One message of the AWS event stream (application/vnd.amazon.eventstream):
    total and headers lengths, the prelude's CRC32, string headers, the
    payload, and the message's CRC32, all big-endian."""
    head = b""
    for name, value in headers.items():
        n, v = name.encode(), value.encode()
        head += struct.pack(">B", len(n)) + n + b"\x07" + struct.pack(">H", len(v)) + v
    prelude = struct.pack(">II", 16 + len(head) + len(payload), len(head))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + head + payload
    return message + struct.pack(">I", zlib.crc32(message))


def eventstream_chunks(events: list[dict[str, Any]]) -> list[bytes]:
    """The frames of Bedrock stream events, each ``{"event": name, "payload"}``
    or ``{"exception": name, "payload"}``."""
    out = []
    for ev in events:
        if "exception" in ev:
            headers = {":message-type": "exception", ":exception-type": ev["exception"]}
        else:
            headers = {":message-type": "event", ":event-type": ev["event"]}
        headers[":content-type"] = "application/json"
        out.append(eventstream_frame(headers, json.dumps(ev["payload"]).encode()))
    return out


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FixtureServer:
    """Replays queued replies; an empty queue answers 500."""

    replies: deque[dict[str, Any]] = field(default_factory=deque)
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                server.requests.append(
                    Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                reply: dict[str, Any] = (
                    server.replies.popleft()
                    if server.replies
                    else {
                        "status": 500,
                        "body": {"error": {"message": "the fixture script is exhausted", "type": "server_error"}},
                    }
                )
                hold = reply.get("hold")
                if hold is not None:  # no answer until the test sets the event (10 s at most)
                    hold.wait(10)
                    self.close_connection = True
                    return
                if "keepalive" in reply:
                    self._keepalive(reply["keepalive"])
                    return
                if "eventstream" in reply:  # Bedrock's binary event stream
                    frames: dict[str, Any] = {
                        "chunks": eventstream_chunks(reply["eventstream"]),
                        "content_type": "application/vnd.amazon.eventstream",
                    }
                    reply = {**reply, **frames}
                if "chunks" in reply:
                    self._stream(reply)
                    return
                payload = reply.get("raw")
                if isinstance(payload, bytes):  # bytes go out as they are, invalid UTF-8 included
                    data = payload
                else:
                    data = payload.encode() if isinstance(payload, str) else json.dumps(reply.get("body")).encode()
                self.send_response(int(reply.get("status", 200)))
                headers = {"Content-Type": "application/json", **reply.get("headers", {})}
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: dict[str, Any]) -> None:
                """Send a server-sent event stream chunk by chunk (str chunks
                are encoded, bytes sent as they are; ``"content_type"``
                replaces text/event-stream); with
                ``"gate": (i, event)`` wait (10 s at most, or the third
                item's seconds) for the event before chunk i, so a test sees
                what happens mid-response; ``"done": event`` is set just before
                the last chunk is sent."""
                self.send_response(int(reply.get("status", 200)))
                self.send_header("Content-Type", reply.get("content_type", "text/event-stream"))
                self.send_header("Connection", "close")
                self.end_headers()
                gate = reply.get("gate")
                done = reply.get("done")
                chunks = reply["chunks"]
                for i, chunk in enumerate(chunks):
                    if gate is not None and gate[0] == i:
                        gate[1].wait(gate[2] if len(gate) > 2 else 10)
                    if done is not None and i == len(chunks) - 1:
                        done.set()  # before the last chunk: the client cannot have the whole response yet
                    self.wfile.write(chunk if isinstance(chunk, bytes) else chunk.encode())
                    self.wfile.flush()
                self.close_connection = True

            def _keepalive(self, stop: threading.Event) -> None:
                """An event stream of keep-alive comments only, one every
                10 ms, until the client leaves or the test sets ``stop``
                (10 s at most)."""
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for _ in range(1000):
                    try:
                        self.wfile.write(b": keep-alive\n\n")
                        self.wfile.flush()
                    except OSError:
                        break
                    if stop.wait(0.01):
                        break
                self.close_connection = True

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def script(self, *replies: str | dict[str, Any]) -> FixtureServer:
        """Queue replies: fixture file names or reply dicts."""
        for r in replies:
            self.replies.append(fixture(r) if isinstance(r, str) else r)
        return self

    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


@contextmanager
def serving(*replies: str | dict[str, Any]) -> Iterator[FixtureServer]:
    server = FixtureServer().script(*replies)
    try:
        yield server
    finally:
        server.close()


if __name__ == "__main__":
    srv = FixtureServer().script(*sys.argv[1:])
    print(srv.url, flush=True)
    sys.stdin.read()  # serve until the parent closes our stdin
    srv.close()
