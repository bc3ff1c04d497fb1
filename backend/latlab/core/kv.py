"""The api's own client of the lab's Redis (the login throttle, the cache, the queue depths
`/metrics` reports), one per process, with short timeouts: a slow Redis costs a second, never
a hang."""

from functools import lru_cache

import redis

from latlab.core.settings import get_settings

# What a call to Redis raises when Redis is away. Besides redis-py's own errors: a connection
# closed under a thread while Redis restarts can surface as OSError (EBADF) or ValueError ("I/O
# operation on closed file") from the socket's buffer, or AttributeError from its parser whose
# buffer is already gone ("'NoneType' object has no attribute 'readline'"), all seen in
# `test_chaos` with Redis killed or stopped. Each is caught around one Redis call only.
REDIS_ERRORS: tuple[type[Exception], ...] = (redis.RedisError, OSError, ValueError,
                                             AttributeError)


@lru_cache
def redis_client() -> redis.Redis:
    settings = get_settings()
    return redis.Redis.from_url(settings.redis_url, socket_timeout=1.0,
                                socket_connect_timeout=1.0, **(settings.broker_tls or {}))
