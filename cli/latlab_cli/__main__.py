import sys

from latlab_cli import main

sys.exit(main())
