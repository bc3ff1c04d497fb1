"""Login throttling: failed sign-ins are counted per account (email) and per client address
over a sliding window (Redis sorted sets scored by the injected clock). Past the limit a
sign-in is refused with 429 and `Retry-After` before any password is checked. Redis being
away lets sign-ins through (logged): the lab stays usable, unthrottled."""

import hashlib
import logging
import uuid

import redis

from latlab.core.clock import get_clock
from latlab.core.errors import TooManyRequests
from latlab.core.kv import redis_client
from latlab.core.settings import get_settings

log = logging.getLogger(__name__)
PREFIX = "latlab:login-failures:"


def _keys(email: str, address: str) -> list[tuple[str, int]]:
    settings = get_settings()
    account = hashlib.sha256(email.strip().lower().encode()).hexdigest()
    return [(f"{PREFIX}account:{account}", settings.login_account_failures),
            (f"{PREFIX}address:{address}", settings.login_address_failures)]


def check(email: str, address: str) -> None:
    """Raises TooManyRequests when the account or the address failed too often lately."""
    window = get_settings().login_window_s
    now = get_clock().now().timestamp()
    try:
        pipe = redis_client().pipeline()
        for key, _ in _keys(email, address):
            pipe.zremrangebyscore(key, "-inf", now - window)
            pipe.zrange(key, 0, 0, withscores=True)
            pipe.zcard(key)
        answers = pipe.execute()
    except redis.RedisError as error:
        log.warning("login throttle unavailable: %s", error)
        return
    for index, (_, limit) in enumerate(_keys(email, address)):
        oldest, count = answers[3 * index + 1], answers[3 * index + 2]
        if count >= limit:
            retry_after = max(1, int(oldest[0][1] + window - now + 0.999))
            raise TooManyRequests(
                f"too many failed sign-ins; try again in {retry_after} s", retry_after)


def failed(email: str, address: str) -> None:
    window = get_settings().login_window_s
    now = get_clock().now().timestamp()
    try:
        pipe = redis_client().pipeline()
        for key, _ in _keys(email, address):
            pipe.zadd(key, {uuid.uuid4().hex: now})
            pipe.expire(key, int(window) + 1)
        pipe.execute()
    except redis.RedisError as error:
        log.warning("login throttle unavailable: %s", error)


def succeeded(email: str) -> None:
    """A right password clears the account's failures (not the address's)."""
    try:
        redis_client().delete(_keys(email, "")[0][0])
    except redis.RedisError as error:
        log.warning("login throttle unavailable: %s", error)
