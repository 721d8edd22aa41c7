"""Render a report in headless Chromium and save a screenshot of the page.

    python benchmarks/screenshot_report.py                       # ECE408 example, v100-sxm2
    python benchmarks/screenshot_report.py report.html -o shot.png --height 6000

With no HTML file given, builds the report of examples/ece408_kernels.csv on
the v100-sxm2 profile first (into a temporary folder) and writes the
screenshot to docs/images/report_ece408.png. Skips with a message (exit 0)
when no Chromium is installed (Debian: apt-get install chromium).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(browser: str, html: Path, png: Path, width: int, height: int) -> None:
    png.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
               f"--user-data-dir={profile}", f"--screenshot={png}", f"--window-size={width},{height}",
               html.resolve().as_uri()]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if run.returncode != 0 or not png.exists():
        raise SystemExit(f"chromium failed ({run.returncode}): {run.stderr.strip()[-800:]}")


def _compress(raw: Path, out: Path) -> None:
    """A 256-colour PNG (a third of the size, no visible change for charts and
    text on white), written atomically."""
    from PIL import Image

    from roofline.core.atomic import atomic_path
    with Image.open(raw) as im:
        small = im.convert("RGB").quantize(colors=256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(out) as tmp:
        small.save(tmp, format="PNG", optimize=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("html", nargs="?", help="report to render (default: build the ECE408 example)")
    ap.add_argument("-o", "--output", default=str(REPO / "docs" / "images" / "report_ece408.png"))
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--height", type=int, default=3000)
    args = ap.parse_args(argv)
    browser = find_browser()
    if browser is None:
        print("skipped: no chromium found (Debian: apt-get install chromium)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(args.html) if args.html else Path(tmp) / "report_ece408.html"
        if not args.html:
            from roofline.report import build_report
            t0 = time.perf_counter()
            report = build_report([REPO / "examples" / "ece408_kernels.csv"], "v100-sxm2",
                                  title="ECE408 convolution layers on a V100")
            report.save(html)
            print(f"built {html.name} in {time.perf_counter() - t0:.2f} s")
        t0 = time.perf_counter()
        raw = Path(tmp) / "screenshot.png"
        screenshot(browser, html, raw, args.width, args.height)
        elapsed = time.perf_counter() - t0
        _compress(raw, Path(args.output))
        print(f"wrote {args.output} ({args.width}x{args.height}, {Path(args.output).stat().st_size / 1e3:.0f} kB, "
              f"chromium {elapsed:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
