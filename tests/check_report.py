"""check_report.py: the course report page, checked as a reader would see it.

Usage: check_report.py PAGE_DIR [--browser] [--screenshot PNG]

PAGE_DIR holds index.html and the runs/ it was made from (scripts/report.sh). Fails (exit 1,
one line per problem) when
- a lab that a run's run.json names has no section on the page, or its section has no table,
- a picture is missing ("no picture of ..."), an <img> is not a PNG that decodes to a picture of
  some size, or it drew no data point (its data-points attribute),
- a lab's run left no report ("no report");
and proves it would: copies of the page with a picture broken, a plot emptied and a lab taken
out must each fail the same checks.
With --browser it also opens the page in Chromium's headless shell (scripts/setup.sh report
installs it) and asks the browser itself whether every image loaded (naturalWidth) and which
sections it shows, and with --screenshot writes the whole page as a PNG to look at. Without the
browser installed, --browser exits 77 (skipped) after the checks above.
"""
import argparse
import base64
import json
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

PROGRAM = "check_report.py"
WINDOW_WIDTH = 1400  # CSS pixels: a laptop or a projector
BROWSERS = ["chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"]


class Page(HTMLParser):
    """The sections, tables, images and missing-item notes of the page."""

    def __init__(self):
        super().__init__()
        self.sections = {}  # id -> {"tables": n, "images": [(alt, points, src)], "missing": []}
        self.current = None
        self.in_missing = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section" and "lab" in (attrs.get("class") or ""):
            self.current = attrs.get("id")
            self.sections[self.current] = {"tables": 0, "images": [], "missing": []}
        elif self.current and tag == "table":
            self.sections[self.current]["tables"] += 1
        elif self.current and tag == "img":
            self.sections[self.current]["images"].append(
                (attrs.get("alt", ""), attrs.get("data-points", ""), attrs.get("src", "")))
        elif self.current and "missing" in (attrs.get("class") or "").split():
            self.in_missing = True
            self.sections[self.current]["missing"].append("")

    def handle_data(self, data):
        if self.in_missing and self.current:
            self.sections[self.current]["missing"][-1] += data

    def handle_endtag(self, tag):
        if tag == "p":
            self.in_missing = False
        if tag == "section":
            self.current = None


def png_size(data):
    """(width, height) of PNG bytes, or None when they are not a PNG."""
    if len(data) < 24 or data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", data[16:24])


def problems_of(text, labs):
    page = Page()
    page.feed(text)
    problems = []
    for lab in labs:
        section = page.sections.get(lab)
        if section is None:
            problems.append(f"{lab}: no section on the page")
            continue
        if section["tables"] == 0:
            problems.append(f"{lab}: no table")
        for note in section["missing"]:
            problems.append(f"{lab}: {' '.join(note.split())}")
        for alt, points, src in section["images"]:
            if not points.isdigit() or int(points) == 0:
                problems.append(f"{alt}: an empty plot (data-points '{points}')")
            match = re.match(r"data:image/png;base64,(.*)$", src, re.S)
            try:
                size = png_size(base64.b64decode(match.group(1), validate=True)) if match else None
            except ValueError:
                size = None
            if not size or min(size) < 50:
                problems.append(f"{alt}: a broken image")
    return problems


def broken_copies(text, labs):
    """(what, page) for pages that the checks must fail."""
    first_img = re.search(r"src='data:image/png;base64,([A-Za-z0-9+/=]{40})", text)
    if first_img:
        yield "a broken image", text.replace(first_img.group(1), "A" * 40, 1)
    yield "an empty plot", re.sub(r"data-points='\d+'", "data-points='0'", text, count=1)
    yield f"a missing lab ({labs[-1]})", text.replace(f"<section id='{labs[-1]}'",
                                                       "<section id='gone'", 1)


def find_browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


PROBE = """<script>
window.addEventListener('load', function () {
  var images = Array.prototype.slice.call(document.images);
  var out = document.createElement('pre');
  out.id = 'report-check';
  out.textContent = JSON.stringify({
    images: images.length,
    broken: images.filter(function (i) { return !i.complete || i.naturalWidth === 0; })
                  .map(function (i) { return i.alt; }),
    sections: Array.prototype.map.call(document.querySelectorAll('section.lab'),
                                       function (s) { return s.id; }),
    height: document.documentElement.scrollHeight
  });
  document.body.appendChild(out);
});
</script>"""


def browser_view(browser, text, scratch):
    """What the browser says of the page: its images, the broken ones, its sections, height."""
    page = Path(scratch) / "probe.html"
    page.write_text(text.replace("</body>", PROBE + "</body>"))
    # (the window as wide as the screenshot's: the page's height depends on its width)
    process = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                              f"--window-size={WINDOW_WIDTH},1000",
                              "--virtual-time-budget=20000", "--dump-dom", page.as_uri()],
                             capture_output=True, text=True, timeout=300)
    match = re.search(r"<pre id=\"report-check\">(.*?)</pre>", process.stdout, re.S)
    if not match:
        return None
    return json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def main():
    parser = argparse.ArgumentParser(prog=PROGRAM, description=__doc__.split("\n")[0])
    parser.add_argument("page_dir")
    parser.add_argument("--browser", action="store_true")
    parser.add_argument("--screenshot")
    options = parser.parse_args()
    page_dir = Path(options.page_dir)
    index = page_dir / "index.html"
    if not index.is_file():
        sys.exit(f"{PROGRAM}: {index} is missing: run scripts/report.sh first")
    text = index.read_text()
    labs = []
    for manifest in sorted(page_dir.glob("runs/*/run.json")):
        labs += [lab for lab in json.loads(manifest.read_text())["labs"] if lab not in labs]
    if not labs:
        sys.exit(f"{PROGRAM}: no runs/*/run.json in {page_dir}")

    problems = problems_of(text, labs)
    for what, copy in broken_copies(text, labs):
        if not problems_of(copy, labs):
            problems.append(f"the checks pass a page with {what}")
    images = text.count("<img ")
    print(f"{PROGRAM}: {len(labs)} labs, {images} pictures in {index}")

    if options.browser and not problems:
        browser = find_browser()
        if browser is None:
            print(f"{PROGRAM}: no Chromium ({', '.join(BROWSERS)}): the browser's view is "
                  "skipped (scripts/setup.sh report installs it)")
            sys.exit(77)
        with tempfile.TemporaryDirectory() as scratch:
            view = browser_view(browser, text, scratch)
            if view is None:
                problems.append(f"{browser} did not show the page")
            else:
                problems += [f"{alt}: the browser could not show it" for alt in view["broken"]]
                problems += [f"{lab}: the browser shows no section" for lab in labs
                             if lab not in view["sections"]]
                if view["images"] != images:
                    problems.append(f"the browser shows {view['images']} pictures, the page "
                                    f"has {images}")
                broken = next(broken_copies(text, labs))[1]
                broken_view = browser_view(browser, broken, scratch)
                if broken_view is not None and not broken_view["broken"]:
                    problems.append("the browser shows a broken picture as if it loaded")
                print(f"{PROGRAM}: {browser}: {view['images']} pictures loaded, "
                      f"{len(view['broken'])} broken, {len(view['sections'])} sections, "
                      f"page {view['height']} px high")
                if options.screenshot:
                    height = min(int(view["height"]) + 40, 60000)
                    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                                    "--hide-scrollbars", f"--window-size={WINDOW_WIDTH},{height}",
                                    f"--screenshot={Path(options.screenshot).resolve()}",
                                    index.resolve().as_uri()],
                                   capture_output=True, text=True, timeout=300)
                    shot = Path(options.screenshot)
                    size = png_size(shot.read_bytes()) if shot.is_file() else None
                    if not size:
                        problems.append(f"no screenshot in {shot}")
                    else:
                        print(f"{PROGRAM}: wrote {shot} ({size[0]}x{size[1]})")

    for problem in problems:
        print(f"{PROGRAM}: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
