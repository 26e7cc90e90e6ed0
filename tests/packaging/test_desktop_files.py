"""The launcher and the AppStream metainfo in packaging/linux/: their validators accept them, and
they agree with the rest of the project (version, URLs, screenshots, icon, desktop file name)."""

from __future__ import annotations

import configparser
import tomllib
import xml.etree.ElementTree as ET

from explainer import __version__
from explainer.commands.desktop import DESKTOP_ID, ICON_NAME, METAINFO
from tests.packaging.conftest import ROOT, validate_desktop_file, validate_metainfo

LINUX = ROOT / "packaging" / "linux"


def _metainfo() -> ET.Element:
    return ET.parse(LINUX / METAINFO).getroot()


def _homepage() -> str:
    homepage: str = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]["Homepage"]
    return homepage


def test_launcher_passes_desktop_file_validate():
    validate_desktop_file(LINUX / DESKTOP_ID)


def test_metainfo_passes_appstreamcli_validate():
    validate_metainfo(LINUX / METAINFO)


class CaseSensitive(configparser.ConfigParser):
    """A desktop entry's keys are case-sensitive (ConfigParser lowers them by default)."""

    def optionxform(self, optionstr: str) -> str:
        return optionstr


def test_launcher_starts_explainer_with_the_installed_icon():
    entry = CaseSensitive(interpolation=None)
    entry.read(LINUX / DESKTOP_ID, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Exec"] == "explainer %f" and section["TryExec"] == "explainer"  # (%f: the file opened)
    assert section["MimeType"] == "application/x-explainer-trace;application/x-explainer-lesson;"
    assert section["Icon"] == ICON_NAME
    assert (ROOT / "assets" / "icons" / f"{ICON_NAME}.svg").is_file()


def test_metainfo_names_this_launcher_version_and_licences():
    root = _metainfo()
    assert root.findtext("launchable") == DESKTOP_ID
    assert root.findtext("icon") == ICON_NAME
    assert root.findtext("project_license") == "Apache-2.0"
    newest = root.find("releases/release")
    assert newest is not None and newest.get("version") == __version__, "add a <release> for the new version"
    found = root.find("description")
    assert found is not None
    description = ET.tostring(found, encoding="unicode")
    assert "SmolLM2-135M-Instruct" in description and "Apache-2.0" in description


def test_metainfo_urls_are_the_projects_and_screenshots_exist_in_the_repository():
    home = _homepage()
    root = _metainfo()
    urls = [u.text or "" for u in root.iter("url")]
    images = [i.text or "" for i in root.iter("image")]
    assert urls and images
    for url in urls + images:
        assert url.startswith(home), f"{url} is not under the Homepage {home} of pyproject.toml"
    for image in images:
        assert (ROOT / image[len(home) :]).is_file(), f"{image}: no such file in the repository"
