"""Sign-in throttling that a neighbour cannot turn against you.

Failed sign-ins are counted over a sliding window (Redis sorted sets scored by the injected
clock) per account, per client address and per device:

- an account with `login_account_failures` refuses further sign-ins (429 with Retry-After,
  before any password is checked) until its oldest failure leaves the window;
- an address with `login_address_failures` is slowed, not shut: each further attempt from it
  must wait a delay that doubles with each failure (`login_address_delay_s` up to
  `login_address_delay_max_s`), claimed atomically, so a script behind a shared proxy
  address spends its own time and a person behind the same address waits at most the cap;
- a browser that signed in to the account before (its device cookie) is held by neither;
  it has its own count of failures, and loses that standing at the account's limit.

Redis being away lets sign-ins through (logged): the lab stays usable, unthrottled."""

import hashlib
import logging
import math
import uuid

from latlab.core.clock import get_clock
from latlab.core.errors import TooManyRequests
from latlab.core.kv import REDIS_ERRORS, redis_client
from latlab.core.security import new_secret, secret_hash
from latlab.core.settings import get_settings

log = logging.getLogger(__name__)
KEYS = "latlab:login-"  # every key of the throttle starts so
PREFIX = KEYS + "failures:"  # + account:, address: or device: and its key -> a sorted set
DEVICES = KEYS + "device:"  # + account:device cookie's hash, while it is trusted
NEXT_TRY = KEYS + "next-try:"  # + an address -> when its next attempt may come
DEVICE_COOKIE = "latlab_device"

# Claims the address's next attempt: when it is not yet due, answers when it is; otherwise
# sets when the one after may come and answers 0.
_CLAIM = """
local due = tonumber(redis.call('GET', KEYS[1]) or '0')
local now = tonumber(ARGV[1])
if now < due then return tostring(due) end
redis.call('SET', KEYS[1], tostring(now + tonumber(ARGV[2])), 'EX', ARGV[3])
return '0'
"""


def _account(email: str) -> str:
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def _failures(kind: str, key: str) -> str:
    return f"{PREFIX}{kind}:{key}"


def _keys(account: str, address: str, device: str | None) -> list[str]:
    """The failure counts an attempt meets: its account's, its address's, its device's."""
    keys = [_failures("account", account), _failures("address", address)]
    return [*keys, _failures("device", secret_hash(device))] if device else keys


def _device(account: str, device: str) -> str:
    """Present while the device cookie is trusted for the account."""
    return f"{DEVICES}{account}:{secret_hash(device)}"


def check(email: str, address: str, device: str | None) -> None:
    """Raises TooManyRequests when the account failed too often lately, or when the address
    failed often and its next attempt is not yet due; a trusted device passes."""
    settings = get_settings()
    window = settings.login_window_s
    now = get_clock().now().timestamp()
    account = _account(email)
    keys = _keys(account, address, device)
    try:
        client = redis_client()
        pipe = client.pipeline()
        for key in keys:
            pipe.zremrangebyscore(key, "-inf", now - window)
            pipe.zrange(key, 0, 0, withscores=True)
            pipe.zcard(key)
        if device:
            pipe.exists(_device(account, device))
        answers = pipe.execute()
        # Per key: (removed, [(oldest, its score)], count); then whether the device is trusted.
        (_, oldest, account_count), (_, _, address_count), *own = (
            answers[i:i + 3] for i in range(0, 3 * len(keys), 3))
        if device and answers[-1] and own[0][2] < settings.login_account_failures:
            return
        if account_count >= settings.login_account_failures:
            retry_after = _seconds(oldest[0][1] + window - now)
            raise TooManyRequests("too many failed sign-ins to this account; try again in "
                                  f"{retry_after} s", retry_after)
        beyond = address_count - settings.login_address_failures
        if beyond < 0:
            return
        delay = min(settings.login_address_delay_max_s,
                    settings.login_address_delay_s * 2 ** min(beyond, 32))
        due = float(client.eval(_CLAIM, 1, NEXT_TRY + address, repr(now), repr(delay),
                                str(math.ceil(window))))
    except REDIS_ERRORS as error:
        log.warning("login throttle unavailable: %s", error)
        return
    if due:
        raise TooManyRequests("many failed sign-ins from this address; the next may come in "
                              f"{_seconds(due - now)} s", _seconds(due - now))


def failed(email: str, address: str, device: str | None) -> None:
    window = get_settings().login_window_s
    now = get_clock().now().timestamp()
    try:
        pipe = redis_client().pipeline()
        for key in _keys(_account(email), address, device):
            pipe.zadd(key, {uuid.uuid4().hex: now})
            pipe.expire(key, math.ceil(window) + 1)
        pipe.execute()
    except REDIS_ERRORS as error:
        log.warning("login throttle unavailable: %s", error)


def succeeded(email: str, device: str | None) -> str | None:
    """A right password clears the account's failures (not the address's) and makes the
    browser a trusted device of the account: returns the device cookie to set (its own, when
    it was one already), or None when Redis is away."""
    account = _account(email)
    device = device or new_secret("dev_")
    try:
        pipe = redis_client().pipeline()
        pipe.delete(_failures("account", account))
        pipe.set(_device(account, device), 1, ex=get_settings().login_device_days * 86400)
        pipe.execute()
    except REDIS_ERRORS as error:
        log.warning("login throttle unavailable: %s", error)
        return None
    return device


def _seconds(remaining: float) -> int:
    return max(1, math.ceil(remaining - 1e-9))
