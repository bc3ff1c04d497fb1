"""A frobnicator: answers each line it reads after --delay-ms. Prints {"port", "pid"} once
listening, then serves until killed. While the file named by $FROB_NOISE_FILE exists it adds
1 ms to every answer: a host that turned slow, for the confirmation tests."""

import argparse
import json
import os
import socket
import threading
import time


def serve(connection: socket.socket, delay_s: float) -> None:
    noise = os.environ.get("FROB_NOISE_FILE")
    with connection, connection.makefile("rwb") as stream:
        for line in stream:
            extra = 0.001 if noise and os.path.exists(noise) else 0.0
            if delay_s + extra:
                time.sleep(delay_s + extra)
            stream.write(line)
            stream.flush()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay-ms", type=float, required=True)
    args = parser.parse_args()
    listener = socket.create_server(("127.0.0.1", 0))
    print(json.dumps({"port": listener.getsockname()[1], "pid": os.getpid()}), flush=True)
    while True:
        connection, _ = listener.accept()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(connection, args.delay_ms / 1000),
                         daemon=True).start()


if __name__ == "__main__":
    main()
