"""`python -m latlab.localstack up` (what `make up` runs)."""

import sys

from latlab.localstack.up import up

if sys.argv[1:] != ["up"]:
    print("usage: python -m latlab.localstack up", file=sys.stderr)
    sys.exit(2)
sys.exit(up())
