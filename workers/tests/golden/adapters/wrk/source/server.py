"""The HTTP server the wrk goldens of 4.1.0/ ran against (Python 3, standard library only).

    python3 server.py PORT

Every request is answered by its path, in a mix that repeats every 10 requests of that path
(a counter, no randomness), so a run's mix is known:
- /skewed: 7 of 10 sleep 10 ms, 3 of 10 answer at once: most requests are slow, the mean is
  below the median;
- /fast: answers at once;
- /timeout: 1 of 10 sleeps 1.5 s (past `wrk --timeout 1s`), the others answer at once;
- /5xx: 3 of 10 answer 503, the others 200, at once;
- /drop: 1 of 10 closes the connection without an answer (wrk: a read error).
"""

import itertools
import socket
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_counters = {path: itertools.count() for path in ("/skewed", "/fast", "/timeout", "/5xx", "/drop")}
_lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # one answer is two writes (head, body): without this, Nagle's algorithm and the
        # client's delayed ACK hold the body back for 40 ms
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        counter = _counters.get(self.path)
        if counter is None:
            self._answer(404)
            return
        with _lock:
            turn = next(counter) % 10
        status = 200
        if self.path == "/skewed" and turn < 7:
            time.sleep(0.010)
        elif self.path == "/timeout" and turn == 0:
            time.sleep(1.5)
        elif self.path == "/5xx" and turn < 3:
            status = 503
        elif self.path == "/drop" and turn == 0:
            self.close_connection = True
            self.connection.shutdown(2)
            return
        self._answer(status)

    def _answer(self, status: int) -> None:
        body = b"ok\n"
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


if __name__ == "__main__":
    socketserver.TCPServer.allow_reuse_address = True
    ThreadingHTTPServer.daemon_threads = True
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
