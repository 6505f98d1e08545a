"""Draw the home-screen icons from the project's own SVG (static/favicon.svg) with Chromium.

Run after changing the SVG: ``.venv/bin/python tools/make_icons.py`` (needs Playwright
and /usr/bin/chromium, as the browser tests do). The PNGs are committed, a few KB each; the
"maskable" one keeps the die inside the safe zone that launchers may crop to a circle.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from playwright.sync_api import sync_playwright

STATIC = Path(__file__).resolve().parent.parent / "static"
SVG = (STATIC / "favicon.svg").read_text()
ICON_DIR = STATIC / "icons"  # the PNGs are served from there; this script is not
CHROMIUM = os.environ.get("PENTA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
THEME = "#0f5132"  # the dice tray's green, as in the manifest
# (file, size, the die's share of the icon, background)
ICONS = (
    ("icon-192.png", 192, 1.0, "transparent"),
    ("icon-512.png", 512, 1.0, "transparent"),
    ("icon-maskable-512.png", 512, 0.6, THEME),
    ("apple-touch-icon.png", 180, 0.8, THEME),
)


def main() -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        for name, size, share, background in ICONS:
            page = browser.new_page(viewport={"width": size, "height": size})
            inner = round(size * share)
            page.set_content(
                f"<body style='margin:0;display:grid;place-items:center;"
                f"width:{size}px;height:{size}px;background:{background}'>"
                f"<div style='width:{inner}px;height:{inner}px'>"
                f"{SVG.replace('<svg ', f'<svg width={inner} height={inner} ')}</div></body>"
            )
            page.screenshot(path=str(ICON_DIR / name), omit_background=background == "transparent")
            page.close()
            print(name, (ICON_DIR / name).stat().st_size, "bytes")
        browser.close()


if __name__ == "__main__":
    main()
