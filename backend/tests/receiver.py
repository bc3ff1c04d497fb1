"""A local stand-in for Slack or a webhook's receiver: a real HTTP server on 127.0.0.1."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    """A real local HTTP server that records what Slack would receive; it answers with the
    scripted statuses first, then 200."""

    def __init__(self, port: int = 0) -> None:
        self.messages: list[dict[str, Any]] = []
        self.requests = 0
        self.script: list[int] = []
        self.stall_s = 0.0  # before each answer
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests += 1
                time.sleep(receiver.stall_s)
                status = receiver.script.pop(0) if receiver.script else 200
                if status == 200:
                    receiver.messages.append(json.loads(body))
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"ok" if status == 200 else b"error")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def text(self, index: int) -> str:
        return json.dumps(self.messages[index], ensure_ascii=False)
