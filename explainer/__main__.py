"""Allow ``python -m explainer``."""

import signal
import sys

if __name__ == "__main__":
    try:
        from explainer.cli import main  # (light: the commands load once main() handles Ctrl-C)
    except KeyboardInterrupt:  # Ctrl-C while Python starts: interrupted, not a traceback
        print("\ninterrupted", file=sys.stderr)
        sys.exit(130)
    code = main()
    # Done: a Ctrl-C from here on finds the work finished and its files whole, and must not turn
    # the exit into a KeyboardInterrupt traceback while the interpreter shuts down.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)
