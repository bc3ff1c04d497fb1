"""latlab golden (issue 44): a benchmark of 5 rounds (its stddev's convention shows) and a
benchmark whose function raises after a few rounds (a failure)."""
import time


def test_five_rounds(benchmark):
    benchmark.pedantic(time.sleep, args=(0.002,), rounds=5, iterations=1)


def test_fails_in_round_3(benchmark):
    calls = []

    def work():
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("latlab golden: a benchmark that fails")
        time.sleep(0.001)

    benchmark.pedantic(work, rounds=5, iterations=1)
