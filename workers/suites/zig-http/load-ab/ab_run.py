"""Runs ApacheBench for the zig-http suite: a warm-up run whose output is dropped, then the
measured run, whose stdout (ab's own report, read by latlab's `ab` parser) is printed as is.

    ab_run.py --url URL --concurrency C --duration S --warmup S --keepalive true|false
              --timeout S

Both runs are time-limited (`ab -t`); `-n` is set high enough never to stop them first. `-r`
keeps ab going past a reset connection (it is counted as a failure), `-q` drops its progress
lines. ab needs a descriptor per connection, so the soft limit is raised to the hard one.
Exit status: ab's, or 2 for bad arguments and a missing ab.
"""

import argparse
import resource
import shutil
import subprocess
import sys

# ab stops at -n requests even with -t; at most this many per second are expected.
REQUESTS_PER_SECOND_BOUND = 1_000_000


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--concurrency", type=int, required=True)
    parser.add_argument("--duration", type=int, required=True)
    parser.add_argument("--warmup", type=int, default=0)
    parser.add_argument("--keepalive", choices=["true", "false"], default="true")
    parser.add_argument("--timeout", type=int, default=30)
    args = parser.parse_args(argv)
    if args.concurrency < 1 or args.duration < 1 or args.warmup < 0 or args.timeout < 1:
        print("ab_run: concurrency, duration and timeout must be >= 1, warmup >= 0",
              file=sys.stderr)
        return 2
    ab = shutil.which("ab")
    if ab is None:
        print("ab_run: ab is not installed (Debian: apache2-utils)", file=sys.stderr)
        return 2
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    def command(seconds: int) -> list[str]:
        keepalive = ["-k"] if args.keepalive == "true" else []
        return [ab, "-q", "-r", *keepalive, "-c", str(args.concurrency), "-t", str(seconds),
                "-n", str(seconds * REQUESTS_PER_SECOND_BOUND), "-s", str(args.timeout),
                args.url]

    if args.warmup > 0:
        warmup = subprocess.run(command(args.warmup), capture_output=True, check=False)
        if warmup.returncode != 0:
            sys.stderr.buffer.write(warmup.stderr)
            return warmup.returncode
    measured = subprocess.run(command(args.duration), stdout=subprocess.PIPE, check=False)
    sys.stdout.buffer.write(measured.stdout)
    return measured.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
