"""A memo in Redis for pure, costly results shared by the api and the ingest worker (the
change points of a metric's history). Keys name the inputs, so entries never go stale; they
expire to bound memory. Redis being away costs time, never an answer, and little time: the
memo is read while a request holds its database connection, so a call gives up after
TIMEOUT_S, and after a failure the memo leaves Redis alone for PAUSE_S (a frozen Redis used to
hold every submission's connection for seconds and fill the pool)."""

import json
import logging
import time
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import redis

from latlab.core.kv import REDIS_ERRORS
from latlab.core.settings import get_settings

log = logging.getLogger(__name__)
TTL_S = 7 * 24 * 3600
TIMEOUT_S = 0.25
PAUSE_S = 10.0
_paused_until = 0.0  # time.monotonic()


@lru_cache
def _client() -> redis.Redis:
    settings = get_settings()
    return redis.Redis.from_url(settings.redis_url, socket_timeout=TIMEOUT_S,
                                socket_connect_timeout=TIMEOUT_S, **(settings.broker_tls or {}))


def _call(command: Callable[[redis.Redis], Any]) -> Any:
    """`command`'s answer, or None when Redis failed now or a moment ago."""
    global _paused_until
    if time.monotonic() < _paused_until:
        return None
    try:
        return command(_client())
    except REDIS_ERRORS as error:
        _paused_until = time.monotonic() + PAUSE_S
        log.warning("cache unavailable for %.0f s: %s", PAUSE_S, error)
        return None


def memo(key: str, compute: Callable[[], Any]) -> Any:
    """`compute()`'s JSON-able value, stored under `key` the first time."""
    stored = _call(lambda client: client.get(key))
    if stored is not None:
        return json.loads(stored)
    value = compute()
    _call(lambda client: client.set(key, json.dumps(value), ex=TTL_S))
    return value
