"""The HTML report rendered by headless Chromium (Debian's ``chromium`` package)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]
# Written into the page (a copy) so that --dump-dom shows whether each image decoded.
PROBE = """<script>
window.addEventListener("load", function () {
  var sizes = Array.from(document.images).map(function (im) {
    return [im.alt, im.complete, im.naturalWidth, im.naturalHeight];
  });
  var pre = document.createElement("pre");
  pre.id = "probe";
  pre.textContent = JSON.stringify(sizes);
  document.body.appendChild(pre);
});
</script></body>"""

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"
    ),
]


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_images_render(demo_run, tmp_path):
    page = (demo_run.folder / "index.html").read_text()
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE))
    proc = chromium(tmp_path, "--virtual-time-budget=10000", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, proc.stderr[-2000:]
    images = json.loads(found.group(1).replace("&quot;", '"'))
    assert [alt for alt, *_ in images] == ["agreement", "position_bias", "paradox", "ranks"]
    for alt, complete, width, height in images:
        assert complete and width > 400 and height > 200, alt


def test_screenshot_is_not_blank(demo_run, tmp_path):
    shot = tmp_path / "report.png"
    proc = chromium(
        tmp_path,
        f"--screenshot={shot}",
        "--window-size=1400,3000",
        (demo_run.folder / "index.html").as_uri(),
    )
    assert shot.exists(), proc.stderr[-2000:]
    pixels = np.asarray(Image.open(shot).convert("RGB"), dtype=float)
    assert pixels.shape == (3000, 1400, 3)
    assert pixels.std() > 20  # text, tables and plots, not a blank page
    # The verdict badges: PASS green (#dafbe1) and FAIL red (#ffebe9) backgrounds.
    for colour in ((0xDA, 0xFB, 0xE1), (0xFF, 0xEB, 0xE9)):
        assert (np.abs(pixels - colour).sum(-1) < 6).sum() > 200, colour
