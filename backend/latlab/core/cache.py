"""A memo in Redis for pure, costly results shared by the api and the ingest worker (the
change points of a metric's history). Keys name the inputs, so entries never go stale; they
expire to bound memory. Redis being away costs time, never an answer."""

import json
import logging
from collections.abc import Callable
from typing import Any

import redis

from latlab.core.kv import redis_client

log = logging.getLogger(__name__)
TTL_S = 7 * 24 * 3600


def memo(key: str, compute: Callable[[], Any]) -> Any:
    """`compute()`'s JSON-able value, stored under `key` the first time."""
    try:
        stored = redis_client().get(key)
    except redis.RedisError as error:
        log.warning("cache unavailable: %s", error)
        return compute()
    if stored is not None:
        return json.loads(stored)
    value = compute()
    try:
        redis_client().set(key, json.dumps(value), ex=TTL_S)
    except redis.RedisError as error:
        log.warning("cache unavailable: %s", error)
    return value
