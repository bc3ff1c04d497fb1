"""Fair use: how often one caller (a token or a user) and one client address may submit runs,
launch jobs and make heavy reads.

Each budget is a token bucket kept in Redis (GCRA: one key holding the moment the bucket is
full again), checked and spent in one Lua script, so the api's processes share it and a
request spends from all its buckets or from none. `limit` requests fit in a burst; the bucket
refills at `limit` per `window_s`, so a caller idle for a window has its whole budget back.
Time is Redis's own clock, one for every api process.

Redis away or slow: the request goes through unlimited (fail open, logged): fair use matters
less than answering. The check waits at most the api's Redis timeout (`latlab.core.kv`, 1 s),
and after a failure the limits are skipped for `REDIS_PAUSE_S` rather than have every request
wait on a Redis that is down or frozen.
"""

import enum
import logging
import math
import time
from dataclasses import dataclass
from functools import lru_cache

from redis.commands.core import Script

from latlab.core.errors import TooManyRequests
from latlab.core.kv import REDIS_ERRORS, redis_client
from latlab.core.settings import get_settings

log = logging.getLogger(__name__)
PREFIX = "latlab:rate:"
REDIS_PAUSE_S = 5.0
# The limits' settings as environment variables (0 turns a limit off).
ENVIRONMENT = ("LATLAB_RATE_WINDOW_S", *(f"LATLAB_{use.upper()}_PER_{who}" for use in (
    "submissions", "job_launches", "heavy_reads") for who in ("CALLER", "ADDRESS")))

# KEYS: the buckets; ARGV: per bucket, its refill interval (s per request) and its capacity.
# Answers {0} when every bucket had room (and spends one from each), else {the seconds to
# wait, the 1-based index of the bucket that is empty longest}.
_SCRIPT = """
local now = redis.call('TIME')
now = tonumber(now[1]) + tonumber(now[2]) / 1e6
local wait, empty = 0, 0
local full = {}
for i, key in ipairs(KEYS) do
  local interval = tonumber(ARGV[2 * i - 1])
  local capacity = tonumber(ARGV[2 * i])
  local tat = math.max(tonumber(redis.call('GET', key) or now), now)
  full[i] = tat + interval
  local until_room = full[i] - interval * capacity - now
  if until_room > wait then
    wait, empty = until_room, i
  end
end
if empty > 0 then
  return {tostring(wait), empty}
end
for i, key in ipairs(KEYS) do
  redis.call('SET', key, tostring(full[i]), 'PX', math.ceil((full[i] - now) * 1000))
end
return {'0'}
"""


class Use(enum.StrEnum):
    submissions = "submissions"
    job_launches = "job_launches"
    heavy_reads = "heavy_reads"


@dataclass(frozen=True)
class Bucket:
    key: str
    limit: int
    window_s: float
    # Who spends from it, as the refusal names it: "token", "user" or "address".
    owner: str


_redis_down_until = 0.0


def spend(use: Use, caller: str | None, address: str) -> None:
    """Spends one request of `use` from the caller's and the address's buckets; raises
    TooManyRequests (with the seconds to wait) when either is empty."""
    buckets = [b for b in _buckets(use, caller, address) if b.limit > 0]
    if not buckets or not _redis_reachable():
        return
    args = [a for b in buckets for a in (b.window_s / b.limit, b.limit)]
    try:
        answer = _script()(keys=[b.key for b in buckets], args=args)
    except REDIS_ERRORS as error:
        _pause_redis(error)
        return
    if len(answer) == 2:
        retry_after = max(1, math.ceil(float(answer[0])))
        owner = buckets[int(answer[1]) - 1].owner
        raise TooManyRequests(
            f"too many {use.replace('_', ' ')} from this {owner}; "
            f"try again in {retry_after} s", retry_after)


def _buckets(use: Use, caller: str | None, address: str) -> list[Bucket]:
    settings = get_settings()
    window = settings.rate_window_s
    per_caller, per_address = {
        Use.submissions: (settings.submissions_per_caller, settings.submissions_per_address),
        Use.job_launches: (settings.job_launches_per_caller, settings.job_launches_per_address),
        Use.heavy_reads: (settings.heavy_reads_per_caller, settings.heavy_reads_per_address),
    }[use]
    buckets = [Bucket(f"{PREFIX}{use}:address:{address}", per_address, window, "address")]
    if caller is not None:
        buckets.append(Bucket(f"{PREFIX}{use}:{caller}", per_caller, window,
                              caller.split(":")[0]))
    return buckets


def _redis_reachable() -> bool:
    # A process-local pause, on the monotonic clock: it is not a fact of the lab's time.
    return time.monotonic() >= _redis_down_until


def _pause_redis(error: Exception) -> None:
    global _redis_down_until
    _redis_down_until = time.monotonic() + REDIS_PAUSE_S
    log.warning("rate limits off for %s s, Redis unavailable: %s", REDIS_PAUSE_S, error)


@lru_cache
def _script() -> Script:
    return redis_client().register_script(_SCRIPT)
