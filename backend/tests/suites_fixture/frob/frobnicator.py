"""A frobnicator: answers each line it reads after --delay-ms. Prints {"port", "pid"} once
listening, then serves until killed."""

import argparse
import json
import os
import socket
import threading
import time


def serve(connection: socket.socket, delay_s: float) -> None:
    with connection, connection.makefile("rwb") as stream:
        for line in stream:
            if delay_s:
                time.sleep(delay_s)
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
