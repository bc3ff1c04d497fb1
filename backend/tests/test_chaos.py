"""The chaos soak (`bench/chaos.py`) for three minutes with a fixed seed: the lab as `make up`
runs it, CI clients, job launches and cancels, SLA breaches, dashboard readers, and random,
overlapping faults of every kind the nemesis knows; every property of its checker must hold.
About 4 minutes here (the lab's start, 3 minutes of chaos, the quiet period, the stop)."""

from bench import chaos

SEED = 33


def test_three_minutes_of_chaos_lose_nothing() -> None:
    verdict = chaos.run(minutes=3, seed=SEED, faults=chaos.FAULTS)
    print(verdict.table())
    assert not verdict.violations, "\n".join(verdict.violations) + "\n" + verdict.table()
