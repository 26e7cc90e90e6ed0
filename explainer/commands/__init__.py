"""The subcommands of `explainer`, one module each: ``add_parser(sub)`` declares its options and
``run(args) -> int`` does the work. Options that several commands share are in options.py,
what they print in output.py. Heavy and Qt imports happen inside ``run``, so `--help` is quick
and the commands that do not draw work without a display."""
