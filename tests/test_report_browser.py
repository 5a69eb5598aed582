"""The smoke run's report in a real browser: headless Chromium (Debian's, driven by
Playwright) opens results/report/report.html as a reader would, and the page must load
without a console error, every image must have decoded to a non-zero size, every link
within the page must land on an element, and the verdicts must open it. Screenshots of
the first screen and of every figure go to results/report/screenshots/ for the reviewer.
"""

import shutil

import pytest
from playwright.sync_api import sync_playwright

CHROMIUM = shutil.which("chromium")
# A laptop's first screen.
VIEWPORT = {"width": 1280, "height": 900}

BROKEN_IMAGES = """() => [...document.images]
  .filter(image => !image.complete || image.naturalWidth === 0 || image.naturalHeight === 0)
  .map(image => image.alt || image.src.slice(0, 80))"""
REPEATED_IDS = """() => {
  const seen = new Map();
  for (const element of document.querySelectorAll('[id]')) seen.set(element.id, (seen.get(element.id) || 0) + 1);
  return [...seen].filter(([, count]) => count > 1).map(([id]) => id);
}"""
DANGLING_LINKS = """() => [...document.querySelectorAll('a[href^="#"]')]
  .map(link => decodeURIComponent(link.getAttribute('href').slice(1)))
  .filter(id => id && !document.getElementById(id))"""
FIGURES = """() => [...document.querySelectorAll('[id^="fig-"]')]
  .filter(element => element.querySelector('img'))
  .map(element => element.id)"""


@pytest.fixture(scope="module")
def page_of_the_report(smoke):
    if CHROMIUM is None:
        pytest.fail("chromium is not on PATH: ./jwtbench test installs it (apt package chromium)")
    problems = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport=VIEWPORT)
        page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.goto((smoke / "results/report/report.html").as_uri(), wait_until="load")
        yield page, problems, smoke / "results/report/screenshots"
        browser.close()


def test_the_report_loads_whole_in_a_browser(page_of_the_report):
    page, problems, _ = page_of_the_report
    assert problems == [], "console errors"
    assert page.evaluate(BROKEN_IMAGES) == [], "images that did not load"
    assert page.evaluate(REPEATED_IDS) == [], "ids that name more than one element"
    assert page.evaluate(DANGLING_LINKS) == [], "links to no element of the page"
    assert page.locator("#verdicts table").count() == 1


WIDER_THAN_THE_WINDOW = """() => [...document.querySelectorAll('body *')]
  .filter(element => element.getBoundingClientRect().right > document.documentElement.clientWidth + 1
                     && !element.closest('table'))
  .slice(0, 5).map(element => element.tagName + (element.id ? '#' + element.id : ''))"""


@pytest.mark.parametrize("width", [1280, 1366])
def test_the_report_fits_the_window(page_of_the_report, width):
    """No sideways scrolling: the page is as wide as the window; a wide table scrolls inside
    its own box. A screenshot at each width stays with the test's output."""
    page, _, folder = page_of_the_report
    page.set_viewport_size({"width": width, "height": VIEWPORT["height"]})
    try:
        page.evaluate("window.scrollTo(0, 0)")
        assert page.evaluate("document.documentElement.scrollWidth") <= page.evaluate("window.innerWidth")
        assert page.evaluate(WIDER_THAN_THE_WINDOW) == []
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"first-screen-{width}px.png"))
    finally:
        page.set_viewport_size(VIEWPORT)


def test_screenshots_for_the_reviewer(page_of_the_report):
    """The first screen holds the verdicts' heading; every figure is shot apart."""
    page, _, folder = page_of_the_report
    folder.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(folder / "first-screen.png"))
    heading = page.locator("#verdicts h2, h2#verdicts, #verdicts > h1").first.bounding_box()
    assert heading and heading["y"] < VIEWPORT["height"], "the verdicts are not on the first screen"
    figures = page.evaluate(FIGURES)
    assert figures
    for figure in figures:
        page.locator(f'[id="{figure}"]').screenshot(path=str(folder / f"{figure}.png"))
    shots = sorted(path.name for path in folder.glob("*.png") if "px" not in path.name)
    assert shots == sorted(["first-screen.png", *(f"{figure}.png" for figure in figures)])
    assert all((folder / name).stat().st_size > 1000 for name in shots)
