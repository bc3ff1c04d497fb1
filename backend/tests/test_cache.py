"""The memo of costly pure results (change points, windows): computed once, kept in Redis for
the other processes and in each process for its next ask, bounded, and an answer while Redis
is away."""

import json
import time
import uuid

import pytest
import redis

from latlab.core import cache
from tests.conftest import REDIS_URL


@pytest.fixture
def computed() -> list[int]:
    return []


def _memo(key: str, computed: list[int]) -> object:
    return cache.memo(key, lambda: computed.append(1) or {"points": [1.5, 2], "key": key})


def test_a_memo_is_computed_once_kept_in_redis_and_read_again_without_it(
        computed, monkeypatch) -> None:
    key = f"latlab:test-memo:{uuid.uuid4().hex}"
    assert _memo(key, computed) == {"points": [1.5, 2], "key": key}
    client = redis.Redis.from_url(REDIS_URL)
    assert json.loads(client.get(key)) == {"points": [1.5, 2], "key": key}
    # Redis away: this process answers from what it kept, without computing again.
    monkeypatch.setattr(cache, "_paused_until", time.monotonic() + 60)
    assert _memo(key, computed) == {"points": [1.5, 2], "key": key}
    assert computed == [1]
    # Another process (this one's memory emptied) reads Redis's copy.
    monkeypatch.setattr(cache, "_paused_until", 0.0)
    monkeypatch.setattr(cache, "_local", type(cache._local)())
    assert _memo(key, computed) == {"points": [1.5, 2], "key": key}
    assert computed == [1]
    client.close()


def test_a_process_keeps_only_its_latest_entries_and_answers_copies(computed,
                                                                    monkeypatch) -> None:
    monkeypatch.setattr(cache, "LOCAL_ENTRIES", 2)
    monkeypatch.setattr(cache, "_local", type(cache._local)())
    keys = [f"latlab:test-memo:{uuid.uuid4().hex}" for _ in range(3)]
    first = _memo(keys[0], computed)
    first["points"].append(99)  # a caller changing its answer changes no one else's
    assert _memo(keys[0], computed) == {"points": [1.5, 2], "key": keys[0]}
    for key in keys[1:]:
        _memo(key, computed)
    assert list(cache._local) == keys[1:]
    assert computed == [1, 1, 1]
