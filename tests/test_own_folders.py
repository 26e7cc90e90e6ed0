"""The processes tests start read none of the user's own folders (tests/conftest.py,
own_user_folders), and still find the built model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import USER_FOLDERS

WHERE = """
import json, platformdirs
from explainer.model.paths import cache_root
from explainer.ui.settings import AppSettings
where = {"settings": AppSettings().store.fileName(), "cache": str(cache_root())}
where.update(config=platformdirs.user_config_dir("explainer"), data=platformdirs.user_data_dir("explainer"))
print(json.dumps(where))
"""


def test_a_process_a_test_starts_keeps_its_settings_in_the_sessions_folders(own_user_folders):
    out = subprocess.run(
        [sys.executable, "-c", WHERE],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=True,
    )
    where = json.loads(out.stdout)
    for key in ("settings", "config", "data"):
        assert Path(where[key]).is_relative_to(own_user_folders), where
    # the model's cache is the user's, where `explainer model build` put the model
    assert where["cache"] == os.environ["EXPLAINER_CACHE_DIR"]
    assert not Path(where["cache"]).is_relative_to(own_user_folders)


def test_every_user_folder_is_the_sessions(own_user_folders):
    for name in USER_FOLDERS:
        assert Path(os.environ[name]).is_relative_to(own_user_folders), name
