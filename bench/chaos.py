"""Chaos soak, Jepsen-style (`latlab_stack.chaos`): a workload, a nemesis and a checker
against the lab as `make up` runs it, in a throwaway data directory; the figures as a table,
exit status 1 when a property is violated.

    .venv/bin/python -m bench.chaos --minutes 30 --seed 7"""

import argparse
import sys

from latlab_stack.chaos import FAULTS, SOAK_BUDGET, run
from latlab_stack.chaos.workload import DEFAULT_BUDGET, WINDOW_S


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faults", default=",".join(FAULTS),
                        help=f"comma-separated, of: {', '.join(FAULTS)}")
    parser.add_argument("--mean-gap", type=float, default=10.0,
                        help="mean seconds between two faults' starts")
    parser.add_argument("--budget", type=int, default=SOAK_BUDGET,
                        help=f"submissions per token per {WINDOW_S:g} s (the lab's default: "
                        f"{DEFAULT_BUDGET})")
    parser.add_argument("--flood", action="store_true",
                        help="one more CI client, on its own token, flooding submissions")
    args = parser.parse_args()
    kinds = tuple(k.strip() for k in args.faults.split(",") if k.strip())
    unknown = [k for k in kinds if k not in FAULTS]
    if unknown:
        parser.error(f"unknown faults: {unknown}")
    verdict = run(args.minutes, args.seed, kinds, mean_gap_s=args.mean_gap, budget=args.budget,
                  flood=args.flood)
    print(verdict.table())
    for violation in verdict.violations:
        print(f"VIOLATED: {violation}", file=sys.stderr)
    return 1 if verdict.violations else 0


if __name__ == "__main__":
    sys.exit(main())
