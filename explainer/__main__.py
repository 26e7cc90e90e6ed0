"""Allow ``python -m explainer``."""

import sys

from explainer.cli import main

if __name__ == "__main__":
    sys.exit(main())
