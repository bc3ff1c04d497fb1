import sys

from latlab.cli import main

sys.exit(main())
