"""A memo in Redis for pure, costly results shared by the api and the ingest worker (the
change points of a metric's history). Keys name the inputs, so entries never go stale; they
expire to bound memory. Redis being away costs time, never an answer, and little time: the
memo is read while a request holds its database connection, so a call gives up after
TIMEOUT_S, and after a failure the memo leaves Redis alone for PAUSE_S (a frozen Redis used to
hold every submission's connection for seconds and fill the pool). Each process also keeps the
LOCAL_ENTRIES it used last: a trend asked again reads its memos without a round trip to Redis
(two of them per trend)."""

import json
import logging
import threading
import time
from collections import OrderedDict
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
LOCAL_ENTRIES = 1024
_local: OrderedDict[str, str] = OrderedDict()  # key -> JSON, the most recently used last
_local_lock = threading.Lock()


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
    with _local_lock:
        text = _local.get(key)
        if text is not None:
            _local.move_to_end(key)
    if text is None:
        stored = _call(lambda client: client.get(key))
        if stored is not None:
            text = stored.decode()
        else:
            text = json.dumps(compute())
            _call(lambda client: client.set(key, text, ex=TTL_S))
        with _local_lock:
            _local[key] = text
            if len(_local) > LOCAL_ENTRIES:
                _local.popitem(last=False)
    return json.loads(text)
