"""`python -m latlab_stack up` (what `make up` runs)."""

import sys

from latlab_stack.up import up

if sys.argv[1:] != ["up"]:
    print("usage: python -m latlab_stack up", file=sys.stderr)
    sys.exit(2)
sys.exit(up())
