"""Options several commands share, each added by one function and read by one.

`generate` and `export` both take a prompt and sampling settings, and every command that loads
a model takes --model and --cache-dir: written once here, they cannot drift apart in spelling,
defaults or checks. Settings are checked only by ``SamplingSettings.validate()``, so the
command line and the app's sampling panel refuse the same values with the same words.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, TypeAlias

from explainer.commands.ranges import ranged, span
from explainer.engine.sampling_limits import MAX_TEMPERATURE
from explainer.errors import ExplainerError
from explainer.model.manifest import DEFAULT_MODEL
from explainer.reading import read_bounded, read_stream_bounded

if TYPE_CHECKING:  # for annotations only: a command imports these when it runs
    from explainer.engine.sampler import SamplingSettings
    from explainer.model.build import BuiltModel
    from explainer.model.changed import WeightsCheck

# argparse has no public name for what add_subparsers() returns.
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

DEVICES = ("auto", "cpu", "cuda")
# The most a prompt file or stdin is read: several times what any context window we run takes
# (a window of tens of thousands of tokens, at most ~100 bytes each); the model's own bound is checked next.
MAX_INPUT_BYTES = 4 << 20


MAX_TOP_K = 1_000_000  # more than any vocabulary (Gemma 3: 262,144); 0 switches it off
MAX_SEED = 2**63 - 1  # a seed numpy and a saved trace both hold


def add_cache_dir_arg(parser: argparse.ArgumentParser, default: object = None) -> None:
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        default=default,
        help="where downloads and built models live (default: $EXPLAINER_CACHE_DIR, else the user cache dir)",
    )


MODEL_HELP = f"the model to use: a name `explainer model list` shows (default: {DEFAULT_MODEL})"


def add_model_arg(parser: argparse.ArgumentParser, default: object = None) -> None:
    parser.add_argument("--model", metavar="NAME", default=default, help=MODEL_HELP)


def add_model_args(parser: argparse.ArgumentParser) -> None:
    """--model NAME and --cache-dir DIR, for every command that loads or builds a model.

    Both are also accepted before the command. Here they have no default at all (SUPPRESS):
    argparse copies a subcommand's defaults over the values parsed before it, so a default of
    None would undo `explainer --cache-dir DIR COMMAND` (:func:`apply_model_default` then gives
    a command the default model).
    """
    add_model_arg(parser, default=argparse.SUPPRESS)
    add_cache_dir_arg(parser, default=argparse.SUPPRESS)


def apply_model_default(args: argparse.Namespace) -> None:
    """A command without --model uses the default model; the app without it (``args.command``
    None) keeps None, which means the model it was last showing."""
    if getattr(args, "command", None) is not None and getattr(args, "model", None) is None:
        args.model = DEFAULT_MODEL


def add_device_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", choices=DEVICES, default=None)


def add_prompt_args(parser: argparse.ArgumentParser) -> None:
    given = parser.add_mutually_exclusive_group()  # both given: refused, rather than one silently winning
    given.add_argument("--prompt", metavar="TEXT", help="the prompt, or - to read stdin")
    given.add_argument("--prompt-file", metavar="FILE", help="read the prompt from a UTF-8 file")
    parser.add_argument("--chat", action="store_true", help="wrap the prompt in the model's chat template")


def add_sampling_args(parser: argparse.ArgumentParser, seed_default: int | None, seed_help: str | None = None) -> None:
    """--temperature, --top-k, --top-p and --seed. How many tokens to generate is each command's
    own option (generate: --max-new-tokens, export: --steps), stored as ``max_new_tokens``."""
    t, k, s = (0, MAX_TEMPERATURE), (0, MAX_TOP_K), (0, MAX_SEED)
    parser.add_argument(
        "--temperature", type=ranged(float, *t), default=0.0, metavar="T", help=f"{span(*t)}; 0 (default) is greedy"
    )
    parser.add_argument(
        "--top-k", type=ranged(int, *k), default=0, metavar="K", help=f"keep the K likeliest, {span(*k)} (0: off)"
    )
    parser.add_argument(
        "--top-p",
        type=ranged(float, 0, 1, above_lo=True),
        default=1.0,
        metavar="P",
        help=f"keep the smallest set reaching P, {span(0, 1, above_lo=True)} (1: off)",
    )
    seed_help = f"{span(*s)}" + (f"; {seed_help}" if seed_help else "")
    parser.add_argument("--seed", type=ranged(int, *s), default=seed_default, metavar="S", help=seed_help)


def apply_cache_dir(args: argparse.Namespace) -> None:
    """Use --cache-dir, if given, for this process and the processes it starts."""
    if args.cache_dir:
        from explainer.model import paths

        paths.set_cache_dir(args.cache_dir)
        os.environ[paths.ENV_CACHE_DIR] = str(paths.cache_root())


def load_model(args: argparse.Namespace) -> BuiltModel:
    """The built model --model names. A name that is neither a manifest's nor built is reported
    as unknown, with the known names, not as "not built": building it would fail the same way."""
    from explainer.model.build import load_built
    from explainer.model.catalog import check_known

    check_known(args.model)
    return load_built(args.model)


@contextlib.contextmanager
def weights_checked(built: BuiltModel) -> Iterator[None]:
    """Hash ``built``'s large files in the background while the block starts and runs the model
    (model/changed.py), and print one warning line on stderr when one changed since the build.
    Started before the engine's session is made (mostly one core's work), the hash is most often
    done before the prompt is read, so the run's timings do not carry it (beside the prefill it
    lengthened the time to the first token).

    The run's output stands and the exit status is the run's: the model did run, on what is now
    on disk, and the line says what to rebuild. A run that ends sooner than the hash waits for
    it; a failed run prints the line too, as the changed
    file may be why; Ctrl-C stops the hash and prints nothing more."""
    from explainer.model.changed import WeightsCheck

    check = WeightsCheck(built)
    try:
        yield
    except Exception:
        _warn_changed(check)
        raise
    except BaseException:
        check.stop()
        raise
    _warn_changed(check)


def _warn_changed(check: WeightsCheck) -> None:
    changed = check.wait()
    if changed is not None:
        with contextlib.suppress(OSError, ValueError):  # (a closed stderr: the run's own status stands)
            print(f"warning: {changed.line()}", file=sys.stderr, flush=True)


def sampling_settings(args: argparse.Namespace) -> SamplingSettings:
    from explainer.engine.sampler import SamplingSettings

    settings = SamplingSettings(
        temperature=args.temperature,
        top_k=args.top_k,
        top_p=args.top_p,
        seed=args.seed,
        max_new_tokens=args.max_new_tokens,
    )
    settings.validate()
    return settings


def decode_utf8(data: bytes, source: str) -> str:
    """Text from stdin or a file; the message names the first bad byte and where it is."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ExplainerError(
            f"{source} is not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})",
            "convert the text to UTF-8, e.g. with `iconv -t UTF-8`",
        ) from None


def read_text_arg(text: str) -> str:
    """A text argument, or stdin for "-". An argument the shell passed in another encoding
    arrives with surrogates, which would fail later and less clearly in the tokenizer."""
    if text == "-":
        if sys.stdin is None:  # the shell closed it (`<&-`): Python then has no stream at all
            raise ExplainerError(
                "standard input is closed, so `-` has nothing to read",
                "pipe the text in (`echo TEXT | explainer ...`) or give it as an argument",
            )
        return decode_utf8(read_stream_bounded(sys.stdin.buffer, MAX_INPUT_BYTES, "standard input"), "standard input")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ExplainerError(
            "the TEXT argument is not valid UTF-8",
            "pass UTF-8 text, or pipe it in with `explainer tokenize -`",
        ) from None
    return text


def read_prompt(args: argparse.Namespace) -> str:
    if args.prompt_file is not None:
        data = read_bounded(args.prompt_file, MAX_INPUT_BYTES, "prompt file")
        return decode_utf8(data, args.prompt_file)
    if args.prompt is None:
        raise ExplainerError("no prompt given", "pass --prompt TEXT, --prompt - (stdin) or --prompt-file FILE")
    return read_text_arg(args.prompt)
