"""The HTML report rendered in a real headless browser (Chromium through Playwright): the figures
and tables are there, drawn, and the page asks the network for nothing.

Optional: skipped unless Playwright is importable and a Chromium binary is found (the system's
`chromium`, or $MIGRATE_CHROMIUM); Playwright's own browser downloads are never used."""
import os
import shutil
from pathlib import Path

import pytest

from cli import main

pytestmark = pytest.mark.browser
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
CHROMIUM = os.environ.get("MIGRATE_CHROMIUM") or shutil.which("chromium") \
    or shutil.which("chromium-browser")
if not CHROMIUM:
    pytest.skip("no chromium binary (apt-get install chromium)", allow_module_level=True)

FIXTURES = Path(__file__).parents[2] / "fixtures" / "check"
MODELS, FROZEN = str(FIXTURES / "models.py"), FIXTURES / "models_ms.py"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A failing check (ProjNet with a transposed weight) in both modes with 3 training steps."""
    tmp = tmp_path_factory.mktemp("browser")
    faulty = tmp / "faulty_ms.py"
    faulty.write_text(FROZEN.read_text().replace("return x @ self.weight.T + self.bias",
                                                 "return x @ self.weight + self.bias"))
    path = tmp / "r.html"
    assert main(["check", MODELS, "--model", "ProjNet()", "--input-shape", "4,6", "--converted",
                 str(faulty), "--train-steps", "3", "--local", "all", "--report", str(path),
                 "-q"]) == 1
    return path


@pytest.fixture(scope="module")
def page(report):
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        pg = browser.new_page(viewport={"width": 1200, "height": 900})
        requests, errors = [], []
        pg.on("request", lambda r: requests.append(r.url))
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(report.as_uri())
        pg.wait_for_load_state("load")
        pg.requests, pg.errors = requests, errors
        yield pg
        browser.close()


def _boxes(page, selector):
    return page.eval_on_selector_all(selector, "els => els.map(e => { const r = "
                                               "e.getBoundingClientRect(); return [r.width, r.height]; })")


def test_the_page_loads_nothing_but_itself(page, report):
    assert page.requests == [report.as_uri()] and page.errors == []
    assert page.title() == "migrate check report"


def test_every_figure_is_drawn_with_its_caption(page):
    kinds = page.eval_on_selector_all("figure svg[role=img]", "els => els.map(e => e.dataset.figure)")
    assert sorted(kinds) == ["depth", "depth", "gradients", "losses"]
    assert all(w > 300 and h > 150 for w, h in _boxes(page, "figure svg"))
    ids = page.eval_on_selector_all("figure", "els => els.map(e => e.id)")
    assert set(ids) == {"depth-eval", "depth-train", "gradients-train", "losses"}
    captions = page.eval_on_selector_all("figcaption", "els => els.map(e => e.innerText)")
    assert len(captions) == 4 and all(len(c) > 40 for c in captions)


def test_depth_figures_show_accumulated_and_local_error_per_layer(page):
    for mode in ("eval", "train"):
        layer_rows = page.eval_on_selector_all(f"figure#depth-{mode} ~ table", "t => t.length")
        assert layer_rows >= 1
        points = page.get_attribute(f"#depth-{mode} polyline.accumulated", "points").split()
        local = page.eval_on_selector_all(f"#depth-{mode} circle.local", "els => els.length")
        assert len(points) >= 1 and local == len(points)  # --local all: a dot per layer call
        fails = page.eval_on_selector_all(f"#depth-{mode} circle.local title",
                                          "els => els.map(e => e.textContent)")
        assert any(t.startswith("proj: local") for t in fails)


def test_gradient_figure_has_a_point_per_parameter_and_marks_the_fault(page):
    rows = page.eval_on_selector_all("#gradients-train + table tr", "els => els.length") - 1
    points = page.eval_on_selector_all("#gradients-train circle.gradient", "els => els.length")
    assert points == rows >= 2
    failing = page.eval_on_selector_all("#gradients-train circle.FAIL title",
                                        "els => els.map(e => e.textContent.split(':')[0])")
    failing_rows = page.eval_on_selector_all("#gradients-train + table tr.FAIL td:first-child",
                                             "els => els.map(e => e.innerText)")
    assert "proj.weight" in failing and failing == failing_rows


def test_loss_figure_has_both_curves_beside_their_difference(page):
    for cls in ("torch-loss", "ms-loss", "loss-difference"):
        pts = page.get_attribute(f"#losses polyline.{cls}", "points").split()
        assert len(pts) == 3, cls  # 3 training steps
    assert page.locator("#losses polyline.ms-loss").get_attribute("stroke-dasharray")


def test_tables_render_with_the_first_divergence_highlighted(page, tmp_path):
    assert page.locator("table").count() >= 5
    first = page.locator("tr.first td").first
    assert first.inner_text() == "proj"
    assert first.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(229, 57, 53)"
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
