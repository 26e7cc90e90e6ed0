"""The options commands share: every command that loads a model takes --model and --cache-dir,
and generate and export build their sampling settings the same way.

Run in-process through ``cli.main`` (the error paths end before any model work); the cache
fixtures put back the cache override and environment that --cache-dir changes."""

from __future__ import annotations

import json

import pytest

from explainer.cli import build_parser, main
from explainer.commands.options import sampling_settings
from explainer.engine.sampler import SamplingSettings

# Every command that loads or builds a model; "{out}" is a figure path in an empty folder.
LOADING = {
    "tokenize": ["tokenize", "hi"],
    "generate": ["generate", "--prompt", "hi"],
    "bench": ["bench"],
    "export": ["export", "--prompt", "hi", "--out", "{out}"],
}


def command(name: str, tmp_path, *extra: str) -> list[str]:
    out = tmp_path / "figures"
    out.mkdir(exist_ok=True)
    return [a.replace("{out}", str(out / "x.svg")) for a in LOADING[name]] + list(extra)


def one_error(capsys: pytest.CaptureFixture[str], *fragments: str) -> str:
    err = capsys.readouterr().err
    assert err.count("error: ") == 1, err
    for f in fragments:
        assert f in err, err
    return err


@pytest.mark.parametrize("name", [*LOADING, "model info", "model build"])
def test_an_unknown_model_is_named_as_unknown_before_any_work(name, tmp_cache, tmp_path, capsys):
    argv = name.split() if name.startswith("model") else command(name, tmp_path)
    assert main([*argv, "--model", "nosuch"]) == 2
    one_error(capsys, "unknown model 'nosuch'", "known models: smollm2-135m-instruct")
    assert not tmp_cache.exists()  # nothing downloaded or built
    assert not any((tmp_path / "figures").glob("*"))  # no figure written


@pytest.mark.parametrize("name", LOADING)
def test_cache_dir_after_the_command_is_the_cache_it_loads_from(name, fake_built_model, tmp_path, capsys):
    """$EXPLAINER_CACHE_DIR holds a built model; --cache-dir after the command wins over it."""
    empty = tmp_path / "empty-cache"
    assert main([*command(name, tmp_path), "--cache-dir", str(empty)]) == 2
    one_error(capsys, "is not built yet", "explainer model build")


def test_model_info_reads_the_cache_dir_given_after_the_command(fake_built_model, tmp_path, capsys):
    empty = tmp_path / "empty-cache"
    assert main(["model", "info", "--json", "--cache-dir", str(empty)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["built"] is False and info["cache_dir"] == str(empty)


def test_tokenize_loads_the_model_from_the_cache_dir_after_the_command(
    fake_built_model, tmp_cache, monkeypatch, capsys
):
    monkeypatch.setenv("EXPLAINER_CACHE_DIR", "/nonexistent")
    assert main(["tokenize", "the", "--json", "--cache-dir", str(tmp_cache)]) == 0
    assert [t["text"] for t in json.loads(capsys.readouterr().out)["tokens"]] == ["t", "he"]


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["--cache-dir", "A", "tokenize", "x"], "A"),  # before the command: not undone by its default
        (["tokenize", "x", "--cache-dir", "B"], "B"),
        (["--cache-dir", "A", "tokenize", "x", "--cache-dir", "B"], "B"),  # the nearer one wins
        (["tokenize", "x"], None),
    ],
)
def test_cache_dir_before_or_after_the_command(argv, expected):
    assert build_parser().parse_args(argv).cache_dir == expected


@pytest.mark.parametrize(
    "flags",
    [
        ["--temperature", "-1"],
        ["--top-k", "-3"],
        ["--top-p", "1.5"],
        ["--top-p", "0"],
    ],
)
def test_generate_and_export_refuse_a_setting_with_the_same_words(flags, tmp_cache, tmp_path, capsys):
    """Refused as the command line is read, naming the option and its range (commands/ranges.py)."""
    assert main([*command("generate", tmp_path), *flags]) == 2
    from_generate = one_error(capsys, f"argument {flags[0]}: use ").split("error: ", 1)[1]
    assert main([*command("export", tmp_path), *flags]) == 2
    assert one_error(capsys).split("error: ", 1)[1] == from_generate
    assert not tmp_cache.exists()  # refused before the model is looked for


def test_generate_and_export_build_the_same_settings_from_the_same_flags(tmp_path):
    flags = ["--temperature", "0.7", "--top-k", "40", "--top-p", "0.9", "--seed", "5"]
    generate = build_parser().parse_args([*command("generate", tmp_path), "--max-new-tokens", "3", *flags])
    export = build_parser().parse_args([*command("export", tmp_path), "--steps", "3", *flags])
    expected = SamplingSettings(temperature=0.7, top_k=40, top_p=0.9, seed=5, max_new_tokens=3)
    assert sampling_settings(generate) == sampling_settings(export) == expected


def test_each_command_keeps_its_own_defaults(tmp_path):
    """generate: a fresh seed and 64 tokens; export: seed 0 and one token, so figures repeat."""
    generate = sampling_settings(build_parser().parse_args(command("generate", tmp_path)))
    export = sampling_settings(build_parser().parse_args(command("export", tmp_path)))
    assert generate == SamplingSettings(seed=None, max_new_tokens=64)
    assert export == SamplingSettings(seed=0, max_new_tokens=1)


class _Terminal:
    def __init__(self, tty: bool) -> None:
        self.text, self.tty = "", tty

    def isatty(self) -> bool:
        return self.tty

    def write(self, s: str) -> None:
        self.text += s

    def flush(self) -> None:
        pass


def test_a_prompt_that_takes_more_than_a_second_shows_a_progress_line_on_a_terminal():
    from explainer.commands.output import ReadingProgress

    now = [0.0]
    term = _Terminal(tty=True)
    progress = ReadingProgress(term, clock=lambda: now[0])
    progress(0, 2000)
    now[0] = 0.5
    progress(512, 2000)
    assert term.text == ""  # under a second: nothing, a short prompt is not worth a line
    now[0] = 1.5
    progress(1024, 2000)
    assert term.text.endswith("reading the prompt: 1,024 / 2,000 tokens, about 1 s left\x1b[K")
    now[0] = 3.0
    progress(2000, 2000)
    assert term.text.endswith("\r\x1b[K")  # the line is erased before the answer starts

    piped = _Terminal(tty=False)
    slow = ReadingProgress(piped, clock=lambda: now[0])
    now[0] = 0.0
    slow(0, 2000)
    now[0] = 5.0
    slow(1000, 2000)
    assert piped.text == ""  # redirected output gets no progress line
