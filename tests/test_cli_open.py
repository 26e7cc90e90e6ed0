"""`explainer FILE.trace|FILE.lesson`: what a file manager runs for a double-click (the
launcher's Exec ends in %f) opens the app with that file; the commands are parsed as before."""

from __future__ import annotations

import pytest

from explainer import cli


@pytest.mark.parametrize(
    ("argv", "rest", "file"),
    [
        (["run.trace"], [], "run.trace"),
        (["LESSON.LESSON"], [], "LESSON.LESSON"),
        (["--cache-dir", "/srv/cache", "class.lesson"], ["--cache-dir", "/srv/cache"], "class.lesson"),
        (["model", "info"], ["model", "info"], None),
        (["export", "--trace", "run.trace"], ["export", "--trace", "run.trace"], None),
        (["--cache-dir", "model", "info"], ["--cache-dir", "model", "info"], None),  # (a cache folder named "model")
        (["modle"], ["modle"], None),  # a typo stays argparse's to name
        ([], [], None),
    ],
)
def test_a_file_given_alone_is_split_from_the_command_line(argv, rest, file):
    assert cli.split_file(argv) == (rest, file)


def test_explainer_file_opens_the_app_with_that_file(tmp_path, monkeypatch):
    import explainer.ui.app as app

    lesson = tmp_path / "week 4.lesson"
    lesson.write_bytes(b"(a file; the window reads it)")
    opened: list[str | None] = []

    def run_app(model=None, open_file=None) -> int:
        opened.append(open_file)
        return 0

    monkeypatch.setattr(app, "run_app", run_app)
    assert cli.main([str(lesson)]) == 0
    assert opened == [str(lesson)]


def test_a_missing_file_or_a_file_with_a_command_is_a_clear_message(tmp_path, capsys):
    assert cli.main([str(tmp_path / "gone.lesson")]) == 2
    assert "gone.lesson: no such file" in capsys.readouterr().err
    run = tmp_path / "run.trace"
    run.write_bytes(b"x")
    assert cli.main([str(run), "model", "info"]) == 2
    assert "goes without a command" in capsys.readouterr().err
