"""The lesson as a SCORM 1.2 package: the zip an LMS (Moodle, Canvas, ...) takes as one activity.

SCORM 1.2, not 2004: Moodle plays 1.2 packages and tracks their completion and score, and does
not play 2004's sequencing. A package is a zip with ``imsmanifest.xml`` at its root: one
organisation with one item, played by one resource of SCORM type ``sco`` (a content object that
talks to the LMS: the page finds the LMS's ``API`` and reports, assets/lesson_web/lms.js), which
lists every file of the package. Here that is the page alone: it needs nothing else.

The manifest's identifiers are the lesson's export id (explainer/lesson_web/document.py), so an
LMS that is given a new export sees a new package, and the page sets aside progress saved by
another one.
"""

from __future__ import annotations

import io
import zipfile
from xml.sax.saxutils import escape, quoteattr

PAGE = "index.html"
MANIFEST = "imsmanifest.xml"
_ZIP_TIME = (2024, 1, 1, 0, 0, 0)  # every member's date: the same lesson gives the same bytes


def manifest(export_id: str, title: str) -> str:
    """imsmanifest.xml for one SCO (the page), its files listed."""
    ident = f"explainer-lesson-{export_id}"
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier={quoteattr(ident)} version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="organization">
    <organization identifier="organization">
      <title>{escape(title)}</title>
      <item identifier="item" identifierref="resource" isvisible="true">
        <title>{escape(title)}</title>
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="resource" type="webcontent" adlcp:scormtype="sco" href="{PAGE}">
      <file href="{PAGE}"/>
    </resource>
  </resources>
</manifest>
"""


def package(page: bytes, export_id: str, title: str) -> bytes:
    """The zip: the manifest at its root and the page beside it."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name, data in ((MANIFEST, manifest(export_id, title).encode("utf-8")), (PAGE, page)):
            info = zipfile.ZipInfo(name, _ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return out.getvalue()
