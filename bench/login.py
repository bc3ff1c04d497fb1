"""Sign-in: what a wrong password costs for a known email and for an unknown one (side by
side, alternating, against one live api), and how the throttle answers a guesser.

    .venv/bin/python -m bench.login [--rounds 40]

The known/unknown ratio should be near 1 (both verify an argon2 hash); the throttle should
refuse the sixth failure on one account, and space one address's attempts after its 20th
failure by delays that double from 1 s (Retry-After), waited out here for a few rounds.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

import httpx
import redis

import latlab_stack as localstack
from bench.lab import bench_token, wait_for_api, work_dir

KNOWN = f"bench-{os.getpid()}@lab.test"  # the member bench_token creates


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=40, help="attempts per kind")
    args = parser.parse_args()
    work = work_dir()
    services = [  # its own, always: the Redis is flushed between the two parts
        localstack.start_postgres(work / "pg", localstack.free_port(), database="bench",
                                  durable=False),
        localstack.start_redis(work / "redis", localstack.free_port(), durable=False),
    ]
    port = localstack.free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "LATLAB_DATABASE_URL": services[0].url,
           "LATLAB_REDIS_URL": services[1].url,
           # Room for the timing rounds; the throttle's own limits are measured after.
           "LATLAB_LOGIN_ACCOUNT_FAILURES": str(10 * args.rounds),
           "LATLAB_LOGIN_ADDRESS_FAILURES": str(10 * args.rounds)}
    bench_token(services[0].url, "read")
    api = subprocess.Popen([sys.executable, "-m", "uvicorn", "latlab.main:app", "--port",
                            str(port), "--log-level", "warning"], env=env)
    try:
        wait_for_api(url)
        with httpx.Client(base_url=url, timeout=60) as client:
            _timing(client, args.rounds)
        api.terminate()
        api.wait(30)
        env.pop("LATLAB_LOGIN_ACCOUNT_FAILURES")
        env.pop("LATLAB_LOGIN_ADDRESS_FAILURES")
        redis.Redis.from_url(services[1].url).flushall()  # the timing rounds' failures
        api = subprocess.Popen([sys.executable, "-m", "uvicorn", "latlab.main:app", "--port",
                                str(port), "--log-level", "warning"], env=env)
        wait_for_api(url)
        with httpx.Client(base_url=url, timeout=60) as client:
            _throttle(client)
    finally:
        api.terminate()
        api.wait(30)
        for service in services:
            service.stop()


def _attempt(client: httpx.Client, email: str) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    response = client.post("/api/v1/auth/login", json={"email": email, "password": "wrong"})
    return time.perf_counter() - started, response


def _timing(client: httpx.Client, rounds: int) -> None:
    known, unknown = [], []
    for index in range(rounds):
        known.append(_attempt(client, KNOWN)[0])
        unknown.append(_attempt(client, f"nobody-{index}@lab.test")[0])
    k, u = statistics.median(known) * 1000, statistics.median(unknown) * 1000
    print(f"wrong password, known email:   median {k:6.1f} ms  ({rounds} attempts)")
    print(f"wrong password, unknown email: median {u:6.1f} ms  ({rounds} attempts)")
    print(f"unknown / known: {u / k:.2f}x")


def _throttle(client: httpx.Client) -> None:
    answers = [_attempt(client, KNOWN)[1] for _ in range(7)]
    print("one account, 7 wrong passwords: "
          + " ".join(str(a.status_code) for a in answers)
          + f"   Retry-After {answers[-1].headers.get('retry-after')} s")
    statuses = [_attempt(client, f"guess-{i}@lab.test")[1].status_code for i in range(20)]
    print(f"one address, 20 more unknown emails: {statuses.count(401)} answered 401, "
          f"{statuses.count(429)} 429 (with the 7 above counted for the address too)")
    for index in range(4):  # each refusal's Retry-After, waited out
        refused = _attempt(client, f"again-{index}@lab.test")[1]
        retry_after = int(refused.headers.get("retry-after", 0))
        print(f"  attempt answered {refused.status_code}, Retry-After {retry_after} s")
        time.sleep(retry_after)
        _attempt(client, f"again-{index}@lab.test")

if __name__ == "__main__":
    main()
