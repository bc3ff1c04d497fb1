"""The actor-iot suite's program (MiniTB), built by the runner's own build and run with the
command lines the runner renders from suite.toml: alerts checked against the data in every
mode, the wrong rule caught, JVM flags applied, bad input refused, and its output read by the
suite's parser (a golden file)."""

import json
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hdrh.histogram import HdrHistogram
from jsonschema import Draft202012Validator
from suite_support import build_cache_dir, build_suite

from latlab_contract.result import TrialIn
from latlab_workers.builds import build, program_context
from latlab_workers.errors import JobError
from latlab_workers.runner import parse_output
from latlab_workers.suites import SUITES_DIR, Suite, load_suite
from latlab_workers.templates import render

SUITE: Suite = load_suite(SUITES_DIR / "actor-iot")
PROGRAM = SUITE.programs["minitb"]
GOLDEN = Path(__file__).parent / "golden"
SMALL = {"devices": 10, "messages": 300, "warmup": 100, "heap_mb": 128}
MODES = ["actor", "sync", "mailbox"]


@pytest.fixture(scope="session")
def build_dir() -> Path:
    return build_suite(SUITE, build_cache_dir(), 900)


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str

    def trial(self) -> TrialIn:
        assert self.returncode == 0, self.stderr[-2000:]
        (series,) = parse_output(SUITE, PROGRAM, self.stdout).series
        (trial,) = series.trials
        return trial


def argv(build_dir: Path, **params: Any) -> list[str]:
    """The program's command line as the runner renders it for scenario "single" + params."""
    (plan,) = SUITE.plan(SUITE.resolved_params("single", {"mode": "sync", **params}))
    return render(PROGRAM.command, {**plan.context, **program_context(SUITE, build_dir)})


def run(command: list[str], timeout: float = 120) -> Outcome:
    done = subprocess.run(command, cwd=SUITE.directory, capture_output=True, text=True,
                          timeout=timeout, check=False)
    return Outcome(done.returncode, done.stdout, done.stderr)


def minitb(build_dir: Path, **params: Any) -> Outcome:
    return run(argv(build_dir, **params))


@pytest.mark.parametrize("mode", MODES)
def test_every_mode_fires_exactly_the_alerts_its_data_calls_for(build_dir: Path,
                                                                 mode: str) -> None:
    trial = minitb(build_dir, mode=mode, **SMALL).trial()
    metrics = trial.metrics
    assert metrics["alerts_fired"] == metrics["alerts_expected"] > 0, metrics
    assert metrics["messages"] == 10 * 300 and metrics["errors"] == 0
    assert metrics["success_rate"] == 1.0
    # Every measured message is in the histogram, the warm-up's are not.
    assert trial.latency.hdr is not None
    assert HdrHistogram.decode(trial.latency.hdr).get_total_count() == 10 * 300
    assert metrics["messages_per_s"] > 0 and metrics["threads"] > 1
    assert metrics["heap_used_mb"] > 0 and metrics["peak_rss_mb"] >= 1
    assert metrics["gc_pause_ms"] >= 0 and metrics["gc_pauses"] >= 0
    assert trial.tuning is not None
    assert trial.tuning["senders"] == "applied: 10 sender threads"
    threads = trial.tuning["actor_threads"]
    assert threads.startswith("off:") if mode == "sync" else threads.startswith("applied: 5")


STAGES = ("device_wait", "device_step", "rule_wait", "persist", "rules")


@pytest.mark.parametrize("mode", MODES)
def test_the_stages_add_up_to_each_messages_latency(build_dir: Path, mode: str) -> None:
    """Each stage is the time between two of a message's stamps, so their means add up to
    the end-to-end mean the histogram holds (HdrHistogram keeps 3 significant digits); the
    mailbox runtimes wait in queues, sync calls straight through and never does; info
    logging is paid in the device's step."""
    trial = minitb(build_dir, mode=mode, **SMALL).trial()
    metrics = trial.metrics
    assert trial.latency.hdr is not None
    total = HdrHistogram.decode(trial.latency.hdr).get_mean_value() / 1000
    spent = sum(metrics[f"stage_{stage}_mean_us"] for stage in STAGES)
    assert spent == pytest.approx(total, rel=0.01), (spent, total, metrics)
    assert all(metrics[f"stage_{stage}_p95_us"] >= 0 for stage in STAGES), metrics
    if mode == "sync":
        assert metrics["stage_device_wait_mean_us"] < 50 and metrics[
            "stage_rule_wait_mean_us"] < 50, metrics
    logged = minitb(build_dir, mode=mode, log_level="info", **SMALL).trial().metrics
    assert logged["stage_device_step_mean_us"] > metrics["stage_device_step_mean_us"], (
        logged, metrics)


def test_the_data_depends_on_the_seed_only(build_dir: Path) -> None:
    """Same seed, same expected alerts whatever the mode and its threads; another seed sends
    other data."""
    expected = {minitb(build_dir, mode=mode, actor_threads=threads, **SMALL).trial()
                .metrics["alerts_expected"] for mode, threads in [("actor", 1), ("mailbox", 3),
                                                                  ("sync", 5)]}
    assert len(expected) == 1
    other = minitb(build_dir, seed=7, **SMALL).trial().metrics["alerts_expected"]
    assert other not in expected


@pytest.mark.parametrize("mode", ["actor", "sync"])
def test_a_wrong_rule_fails_the_trial_naming_both_counts(build_dir: Path, mode: str) -> None:
    outcome = minitb(build_dir, mode=mode, wrong_rule=True, **SMALL)
    assert outcome.returncode == 5 and outcome.stdout == ""
    line = next(line for line in outcome.stderr.splitlines() if "alerts_fired" in line)
    fired, expected = (int(line.split(name)[1].split()[0])
                       for name in ("alerts_fired ", "alerts_expected "))
    assert fired > expected > 0, line
    assert "raised alerts the data does not call for" in line and "--wrong-rule" in line


@pytest.mark.parametrize(("level", "lines_per_message"), [("warn", 0), ("info", 1),
                                                         ("debug", 2)])
def test_the_log_level_logs_each_message_as_the_seeds_platform_did(
        build_dir: Path, level: str, lines_per_message: int) -> None:
    """info: a line per message (warm-up and measured) from the device's step, with its time;
    debug: one more from the rule chain; warn: none. The trial is measured either way."""
    outcome = minitb(build_dir, mode="actor", log_level=level, **SMALL)
    outcome.trial()
    logged = [line for line in outcome.stderr.splitlines() if " minitb.Core - " in line]
    messages = SMALL["devices"] * (SMALL["messages"] + SMALL["warmup"])
    assert len(logged) == lines_per_message * messages, outcome.stderr[-2000:]
    if logged:
        assert re.fullmatch(r"\d+ \[[^]]+\] INFO minitb\.Core - device \d+ telemetry seq \d+: "
                            r"temperature -?\d+ humidity \d+", logged[0]), logged[0]


def test_the_backlog_is_what_each_message_found_in_flight(build_dir: Path) -> None:
    """sync: each sender carries its message through the rule chain before the next, so a
    message finds at most the other senders' in flight; actor: the unpaced senders run ahead
    of the mailboxes, so the backlog grows toward every message measured."""
    sync = minitb(build_dir, mode="sync", **SMALL).trial().metrics
    senders = SMALL["devices"]  # at most one sender per device
    assert 0 <= sync["queue_depth_p99"] <= sync["queue_depth_max"] <= senders - 1, sync
    actor = minitb(build_dir, mode="actor", **SMALL).trial().metrics
    measured = SMALL["devices"] * SMALL["messages"]
    assert actor["queue_depth_p99"] <= actor["queue_depth_max"] < measured, actor


def test_log_levels_and_thread_counts_sweep_as_series() -> None:
    plans = SUITE.plan(SUITE.resolved_params("single", {
        "mode": "actor", "log_level": ["warn", "info"], "actor_threads": [5, 10]}))
    assert [p.labels for p in plans] == [
        {"mode": "actor", "devices": "1", "log_level": level, "actor_threads": threads}
        for level in ("warn", "info") for threads in ("5", "10")]
    (plain,) = SUITE.plan(SUITE.resolved_params("single", {"mode": "actor"}))
    assert plain.labels == {"mode": "actor", "devices": "1"}  # unchanged for older runs


def test_jvm_flags_from_params_are_applied_and_reported(build_dir: Path) -> None:
    serial = minitb(build_dir, gc="serial", **{**SMALL, "heap_mb": 64}).trial()
    assert serial.tuning is not None
    assert serial.tuning["heap"].startswith("applied: max ") and "-Xmx64m" in (
        serial.tuning["heap"])
    assert serial.tuning["gc"] == "applied: Copy, MarkSweepCompact"
    z = minitb(build_dir, gc="z", **SMALL).trial()
    assert z.tuning is not None and "ZGC" in z.tuning["gc"]


def test_bad_jvm_flag_params_are_refused_by_the_schema() -> None:
    """What the api checks before a job exists (the job e2e sees the 422)."""
    validator = Draft202012Validator(SUITE.params_schema)
    for bad in [{"gc": "-XX:+UseEpsilonGC"}, {"gc": "g1 -XX:OnOutOfMemoryError=reboot"},
                {"heap_mb": "512m"}, {"heap_mb": 16}, {"heap_mb": 10**6},
                {"jvm_flags": "-Xss1k"}]:
        assert list(validator.iter_errors(bad)), bad
    assert not list(validator.iter_errors({"gc": ["g1", "z"], "heap_mb": 256}))


def test_a_pass_past_its_timeout_fails_saying_how_far_it_got(build_dir: Path) -> None:
    started = time.monotonic()
    outcome = minitb(build_dir, mode="actor", devices=1, messages=10_000_000, warmup=0,
                     actor_threads=1, timeout_s=1, heap_mb=1024)
    assert outcome.returncode == 6, outcome.stderr[-2000:]
    assert "the measurement timed out after 1 s" in outcome.stderr
    assert "of 10000000 messages did not reach the end of the rule chain" in outcome.stderr
    assert time.monotonic() - started < 60  # bounded: it stops itself, it is not killed


def test_a_jvm_out_of_heap_exits_at_once_saying_so(build_dir: Path) -> None:
    """The store keeps every reading: 2,000,000 of them do not fit in 32 MB."""
    outcome = minitb(build_dir, mode="actor", devices=10, messages=200_000, warmup=0,
                     heap_mb=32, timeout_s=600)
    assert outcome.returncode == 3 and outcome.stdout == ""
    assert "Terminating due to java.lang.OutOfMemoryError: Java heap space" in outcome.stderr


@pytest.mark.parametrize(("arguments", "message"), [
    (["--mode", "fast", "--devices", "1", "--messages", "1"], "--mode: 'fast' is not one of"),
    (["--mode", "sync", "--devices", "0", "--messages", "1"], "--devices: 0 is not in 1.."),
    (["--mode", "sync", "--devices", "x", "--messages", "1"], "'x' is not an integer"),
    (["--mode", "sync", "--devices", "1"], "--messages is required"),
    (["--mode", "sync", "--devices", "1", "--messages", "1", "--jvm", "x"],
     r"unknown options \[--jvm\]"),
    (["--mode", "sync", "--devices", "1", "--messages", "1", "--log-level", "loud"],
     "--log-level: 'loud' is not one of"),
])
def test_bad_options_are_usage_errors(build_dir: Path, arguments: list[str],
                                      message: str) -> None:
    outcome = run(["java", "-jar", str(build_dir / "target" / "minitb.jar"), *arguments])
    assert outcome.returncode == 2 and outcome.stdout == ""
    assert re.search(message, outcome.stderr), outcome.stderr


def test_the_golden_output_becomes_a_trial_with_every_declared_metric() -> None:
    """tests/golden/minitb-actor-10.json, real output (the command is in golden/README.md)."""
    raw = (GOLDEN / "minitb-actor-10.json").read_text()
    (series,) = parse_output(SUITE, PROGRAM, raw).series
    (trial,) = series.trials
    document = json.loads(raw)
    assert set(trial.metrics) == set(SUITE.metrics)
    assert trial.metrics == document["metrics"]
    assert trial.tuning == document["tuning"]
    assert trial.latency.hdr is not None
    histogram = HdrHistogram.decode(trial.latency.hdr)
    assert histogram.get_total_count() == document["metrics"]["messages"] == 10 * 1000
    assert trial.metrics["messages_per_s"] == pytest.approx(
        document["metrics"]["messages"] / document["duration_s"])
    assert trial.metrics["alerts_fired"] == trial.metrics["alerts_expected"]


def test_a_broken_build_fails_with_the_compilers_message(tmp_path: Path) -> None:
    broken = tmp_path / "suites" / "actor-iot"
    shutil.copytree(SUITE.directory, broken, ignore=shutil.ignore_patterns("tests"))
    (broken / "src" / "main" / "java" / "minitb" / "Broken.java").write_text(
        "package minitb;\nclass Broken { int x = ; }\n")
    with pytest.raises(JobError, match=r"building actor-iot failed \(1\): (.|\n)*"
                       r"Broken.java:\[2,24\] illegal start of expression"):
        build(load_suite(broken), tmp_path / "builds", time.monotonic() + 300)
    assert not (tmp_path / "builds" / "actor-iot" / load_suite(broken).version / ".built").exists()


def test_the_build_leaves_the_source_tree_clean(build_dir: Path) -> None:
    assert (build_dir / "target" / "minitb.jar").is_file()
    assert not (SUITE.directory / "target").exists()
