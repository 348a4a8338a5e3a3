"""Every module's Space in a real browser.

Debian's chromium (installed here when missing) driven by Playwright; each app is served
on 127.0.0.1 exactly as a Space runs it (its ``app.py``), and the page may reach nothing
but that address. The test clicks each of the card's examples, computes, reads the result
off the page and compares it with a direct ``compute``, checks that the plot rendered,
and saves a screenshot per module under ``test-artifacts/``. On a 1280 x 800 screen the
first page is at most 2.5 screens tall, with the options and the card collapsed.
"""

import contextlib
import csv
import json
import os
import socket
import subprocess

import numpy as np
import pytest

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

from shared.space import app as space_app  # noqa: E402
from shared.space import parsing as space_parsing
from conftest import MODULE_NAMES, REPO_ROOT, load_module, run_app  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = REPO_ROOT / "test-artifacts"
TIMEOUT_MS = 30_000


def ensure_chromium():
    """Debian's chromium; never a browser download."""
    if not os.path.exists(CHROMIUM):
        environment = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update"], check=True, capture_output=True, env=environment)
        subprocess.run(["apt-get", "install", "-y", "chromium"], check=True, capture_output=True, env=environment)
    assert os.path.exists(CHROMIUM), "Debian's chromium did not install"


@pytest.fixture(scope="module")
def browser():
    # Module scope: the sync API keeps an asyncio loop running on this thread until it stops, and
    # asyncio.run() in any later test on the same worker would fail.
    ensure_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def served(name):
    """Run ``<name>/app.py`` as a Space does (its folder as working dir and on the path) and serve it."""
    namespace = run_app(name)
    app = namespace["app"]
    port = free_port()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}/", namespace
    finally:
        app.close()


@contextlib.contextmanager
def opened(browser, url):
    """A page that may reach only the app (everything else, e.g. web fonts, is refused)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(TIMEOUT_MS)
    outside = []

    def only_loopback(route):
        if route.request.url.startswith(("http://127.0.0.1", "data:", "blob:")):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_loopback)
    page.goto(url, wait_until="domcontentloaded")
    page.locator("#compute").wait_for()
    page.locator("#card-panel").wait_for()  # the page is rendered down to the (collapsed) card
    try:
        yield page
    finally:
        page.close()


def open_panel(page, panel_id):
    """Open a collapsed accordion (the Options panel, the card) by its label; a no-op if open."""
    content = page.locator(f"#{panel_id} > [data-testid=accordion-content]")
    if not content.is_visible():
        page.locator(f"#{panel_id} > button.label-wrap").click()
        content.wait_for()


def show_option(page, name, group):
    """The control of option ``name``, shown: the Options panel opened at its group's tab."""
    open_panel(page, "options")
    page.locator("#option-groups [role=tab]", has_text=group).click()
    control = page.locator(f"#option-{name}")
    control.wait_for()
    return control


def option_box(page, name, group):
    """The text box of a one-line option (an input or a textarea, as gradio renders it)."""
    return show_option(page, name, group).locator("input, textarea").first


def compute_in_page(page):
    """Click Compute and wait for this request's status; returns (status text, is_error)."""
    before = page.locator("#status .space-status").get_attribute("data-run")
    page.locator("#compute").click()
    page.wait_for_function(
        "before => { const s = document.querySelector('#status .space-status');"
        " return s && s.dataset.run !== before; }",
        arg=before,
    )
    status = page.locator("#status .space-status")
    return status.inner_text(), "error" in (status.get_attribute("class") or "")


def result_in_page(page):
    return json.loads(page.locator("#result .cm-content").inner_text())


def plot_width(page):
    """Natural width of the rendered plot image (0 if none)."""
    page.wait_for_function(
        "() => { const img = document.querySelector('#plot img');"
        " return img && img.complete && img.naturalWidth > 0; }"
    )
    return page.evaluate("() => document.querySelector('#plot img').naturalWidth")


def ranking_in_page(page):
    """The ranking table's rows (each a list of its cells' text), once it is shown."""
    page.locator("#ranking [role=gridcell]").first.wait_for()
    cells = page.evaluate("""() => [...document.querySelectorAll('#ranking [role=gridcell]')]
        .map(cell => [Number(cell.dataset.row), Number(cell.dataset.col), cell.innerText.trim()])""")
    rows = {}
    for row, column, text in cells:
        rows.setdefault(row, {})[column] = text
    return [[cells[column] for column in sorted(cells)] for _, cells in sorted(rows.items())]


def upload(page, path):
    """Put a file in the CSV box (replacing the one there) and wait until the page shows it."""
    clear = page.locator("#csv button[aria-label=Clear]")
    if clear.count():
        clear.click()
    page.locator("#csv input[type=file]").set_input_files(str(path))
    page.locator(f'#csv [aria-label="{path.name}"]').wait_for()


def as_json(value):
    return json.loads(json.dumps(value))


def assert_no_traceback(page):
    text = page.locator("body").inner_text()
    assert "Traceback" not in text and 'File "' not in text


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_card_examples_compute_in_the_browser(browser, name):
    metric = load_module(name)
    card_examples = space_parsing.card_examples(REPO_ROOT / name)
    assert card_examples, f"{name}: the card has no examples"
    with served(name) as (url, namespace), opened(browser, url) as page:
        examples = [list(row) for row in namespace["EXAMPLES"]]
        rows = page.locator("#examples tbody tr")
        rows.first.wait_for()
        assert rows.count() == len(examples)
        # Was (issue 26): the examples table ran past the page's right edge (into a scroll box).
        table, box = page.evaluate("""() => {
            const table = document.querySelector('#examples table');
            const box = table.parentElement;
            return [table.getBoundingClientRect().right, box.getBoundingClientRect().right + 1 - (box.scrollWidth - box.clientWidth)];
        }""")
        assert table <= box and page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        widths = {}
        for predictions, references, options in card_examples:
            index = examples.index([predictions, references, options])  # the app offers each card example
            # Emptied first, so that seeing the example's text means the example has been filled in.
            page.locator("#predictions textarea").fill("")
            rows.nth(index).click()
            page.wait_for_function(
                "expected => document.querySelector('#predictions textarea').value === expected", arg=predictions
            )
            status, failed = compute_in_page(page)
            assert not failed, status
            expected = metric.compute(predictions=json.loads(predictions), references=json.loads(references), **json.loads(options))
            assert result_in_page(page) == as_json(expected), (index, status)
            widths[index] = plot_width(page)
        assert min(widths.values()) > 300
        # The screenshot shows the example with the most plot panels.
        widest = max(widths, key=widths.get)
        if widest != index:
            page.locator("#predictions textarea").fill("")
            rows.nth(widest).click()
            page.wait_for_function(
                "expected => document.querySelector('#predictions textarea').value === expected", arg=examples[widest][0]
            )
            compute_in_page(page)
            plot_width(page)
        open_panel(page, "card-panel")
        assert page.locator("#card").inner_text().strip(), "the card's text is missing from its panel"
        assert_no_traceback(page)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"space_{name}.png"), full_page=True)


LAPTOP = {"width": 1280, "height": 800}


def option_groups(metric):
    """The Options tabs a Space should show: Basic and Intervals always; Judges for a module that
    ranks judges (``judges`` among its inputs), Prevalence for one that corrects a prevalence
    (``unlabeled_predictions`` among its inputs)."""
    inputs = set(getattr(metric, "INPUTS", ()))
    return ["Basic", "Intervals"] + ["Judges"] * ("judges" in inputs) + ["Prevalence"] * ("unlabeled_predictions" in inputs)


def card_heading(name):
    """The card's first line after its YAML front matter (its title), read from the README itself."""
    text = (REPO_ROOT / name / "README.md").read_text(encoding="utf-8")
    body = text.split("---", 2)[2] if text.startswith("---") else text
    return next(line for line in body.splitlines() if line.strip()).lstrip("#").strip()


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_the_first_page_fits_a_laptop_screen(browser, name):
    """Was: at 1280 x 800 the informedness Space was 18,137 px tall (the card appended in full,
    20 options open, an examples table of 25 columns with headers broken mid-word).
    Now, on first load: at most 2.5 screens; the inputs, Compute, the result and the plots
    above the collapsed options-free part of the page (Compute on the first screen); the
    Options panel collapsed; at most 6 columns of examples, each header on one line; the
    card one click away."""
    with served(name) as (url, namespace), opened(browser, url) as page:
        page.set_viewport_size(LAPTOP)
        parts = ["predictions", "references", "compute", "result", "plot", "examples", "card-panel"]
        for part in parts:  # rendered (gradio mounts some parts a moment after the others)
            page.locator(f"#{part}").wait_for(state="attached")
        page.locator("#examples tbody tr").first.wait_for()
        height = page.evaluate("() => document.documentElement.scrollHeight")
        assert height <= 2.5 * LAPTOP["height"], f"{name}: the first page is {height} px tall"

        assert not page.locator("#options > [data-testid=accordion-content]").is_visible()
        assert not page.locator("#option-groups").is_visible()
        assert not page.locator("#card").is_visible()

        # Where things are, in page coordinates (the page is scrolled to the top).
        boxes = page.evaluate("""ids => Object.fromEntries(ids.map(id => {
            const box = document.querySelector('#' + id).getBoundingClientRect();
            return [id, {top: box.top + window.scrollY, bottom: box.bottom + window.scrollY, height: box.height}];
        }))""", parts)
        for part in ("predictions", "references", "compute", "result", "plot"):
            assert boxes[part]["height"] > 0 and boxes[part]["bottom"] <= height, (part, boxes[part], height)
            assert boxes[part]["bottom"] <= boxes["card-panel"]["top"], (part, boxes[part])
        assert boxes["compute"]["bottom"] <= LAPTOP["height"], boxes["compute"]  # on the first screen

        columns = page.evaluate("""() => [...document.querySelectorAll('#examples thead th')]
            .filter(th => th.getBoundingClientRect().width > 0).length""")
        assert 1 <= columns <= 6, columns
        rows = page.locator("#examples tbody tr")
        assert rows.count() == len(namespace["EXAMPLES"])
        assert all(rows.nth(index).locator("td").count() == columns for index in range(rows.count()))
        # Each header on one line: the rectangles of its text's lines share one top.
        lines = page.evaluate("""() => [...document.querySelectorAll('#examples thead th')].map(th => {
            const range = document.createRange();
            range.selectNodeContents(th);
            return [th.innerText, new Set([...range.getClientRects()].map(rect => Math.round(rect.top))).size];
        })""")
        assert all(count == 1 for _, count in lines), lines

        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"space_{name}_first_load.png"), full_page=True)

        open_panel(page, "card-panel")
        card = page.locator("#card")
        assert card.is_visible() and card_heading(name) in card.inner_text()

        # One click opens the options, grouped in tabs: only the groups the module has.
        open_panel(page, "options")
        tabs = [tab.inner_text().strip() for tab in page.locator("#option-groups [role=tab]").all()]
        assert tabs == option_groups(load_module(name))


def test_balanced_accuracy_typed_options_csv_upload_and_bad_input(browser, tmp_path):
    """Typing values one per line and setting controls, a CSV upload, and messages for bad input."""
    metric = load_module("balanced_accuracy")
    with served("balanced_accuracy") as (url, _), opened(browser, url) as page:
        # One value per line, threshold typed as a bare word, a checkbox.
        page.locator("#predictions textarea").fill("0.2\n0.9\n0.1\n0.3\n0.8")
        page.locator("#references textarea").fill("0\n1\n1\n0\n1")
        option_box(page, "threshold", "Basic").fill("auto")
        page.locator("#option-return_per_class input").check()
        page.locator("#option-task input").first.click()
        page.get_by_role("option", name="infer").click()
        status, failed = compute_in_page(page)
        assert not failed, status
        expected = metric.compute(predictions=[0.2, 0.9, 0.1, 0.3, 0.8], references=[0, 1, 1, 0, 1],
                                  threshold="auto", return_per_class=True)
        assert result_in_page(page) == as_json(expected)
        three_panels = plot_width(page)

        # A confidence level typed as people write it (was, issue 26: "found str"), with a fixed threshold.
        option_box(page, "threshold", "Basic").fill("0.5")
        option_box(page, "confidence_level", "Intervals").fill("95%")
        status, failed = compute_in_page(page)
        assert not failed and "confidence_level=0.95" in status, status
        expected = metric.compute(predictions=[0.2, 0.9, 0.1, 0.3, 0.8], references=[0, 1, 1, 0, 1],
                                  threshold=0.5, return_per_class=True, confidence_level=0.95)
        assert result_in_page(page) == as_json(expected)
        option_box(page, "confidence_level", "Intervals").fill("")
        option_box(page, "threshold", "Basic").fill("auto")

        # Bad input: a readable message in the page, the plot cleared, and no traceback.
        page.locator("#predictions textarea").fill("[0, 1")
        status, failed = compute_in_page(page)
        assert failed and "predictions: not valid JSON" in status
        assert page.locator("#plot img").count() == 0
        marker = tmp_path / "ran"
        page.locator("#predictions textarea").fill(f"__import__('os').system('touch {marker}')")
        status, failed = compute_in_page(page)
        assert failed and "predictions" in status
        assert_no_traceback(page)

        # The CSV tab: scores and labels as columns, weights too; the result equals a direct compute.
        path = tmp_path / "judge.csv"
        with open(path, "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(["predictions", "references", "sample_weight"])
            writer.writerows([[0.2, 0, 1], [0.9, 1, 2], [0.1, 1, 1], [0.3, 0, 0.5], [0.7, 1, 1], [0.6, 0, 1]])
        page.get_by_role("tab", name="Upload CSV").click()
        upload(page, path)
        status, failed = compute_in_page(page)
        assert not failed and "6 rows of judge.csv" in status, status
        expected = metric.compute(predictions=[0.2, 0.9, 0.1, 0.3, 0.7, 0.6], references=[0, 1, 1, 0, 1, 0],
                                  sample_weight=[1, 2, 1, 0.5, 1, 1], threshold="auto", return_per_class=True)
        assert result_in_page(page) == as_json(expected)
        assert plot_width(page) == three_panels  # confusion, recall and ROC
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "space_balanced_accuracy_csv.png"), full_page=True)

        # A CSV over the size limit: a message, and the app still serves the next request.
        big = tmp_path / "big.csv"
        row = "0,0\n"
        big.write_text("predictions,references\n" + row * (space_app.MAX_UPLOAD_BYTES // len(row) + 1))
        upload(page, big)
        status, failed = compute_in_page(page)
        assert failed and "file too large" in status, status
        page.get_by_role("tab", name="Paste values").click()
        page.locator("#predictions textarea").fill("[0, 1, 0, 0]")
        page.locator("#references textarea").fill("[0, 1, 1, 0]")
        option_box(page, "threshold", "Basic").fill("")
        status, failed = compute_in_page(page)
        assert not failed, status
        assert result_in_page(page)["balanced_accuracy"] == 0.75
        assert_no_traceback(page)
    assert not marker.exists()  # the typed text was data, never code


def test_scores_pasted_one_row_per_line(browser):
    """Top-k scores typed one row per line, k_list typed: recall@k curve and result as computed directly."""
    metric = load_module("balanced_topk_accuracy")
    with served("balanced_topk_accuracy") as (url, _), opened(browser, url) as page:
        page.locator("#predictions textarea").fill("0.7, 0.2, 0.1\n0.1, 0.3, 0.6\n0.05, 0.05, 0.9\n0.05, 0.9, 0.05")
        page.locator("#references textarea").fill("0\n1\n2\n1")
        option_box(page, "k", "Basic").fill("")
        option_box(page, "k_list", "Basic").fill("1, 2")
        page.locator("#option-return_per_class input").uncheck()
        status, failed = compute_in_page(page)
        assert not failed, status
        scores = [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.05, 0.05, 0.9], [0.05, 0.9, 0.05]]
        assert result_in_page(page) == as_json(metric.compute(predictions=scores, references=[0, 1, 2, 1], k_list=[1, 2]))
        assert plot_width(page) > 300


def test_judges_csv_ranks_the_judges_on_a_laptop_screen(browser, tmp_path):
    """A CSV with references and one column per judge: the page shows the ranking a direct compute gives
    (simultaneous intervals, adjusted p-values, the best set) as a table and a forest plot, on a 1280 x 800
    screen, with the upload's help naming the judge columns. No option is typed: with judges the page asks
    for intervals at 0.95 (was: dots only, and the ranking as JSON only).

    Was also: a judge giving scores (here a "confidence" of 10-90 against 0/1 references) showed a green
    "✓ Computed" beside its 0.0, the warning only in the server's log. Now the status line names that
    judge and is a warning (⚠) or a refusal (✗), never ✓; with threshold=auto typed in the options, as
    the message says, the ranking holds that judge's cut to deploy (optimal_threshold) and the status is ✓."""
    metric = load_module("balanced_accuracy")
    rng = np.random.default_rng(32)
    references = (rng.random(120) < 0.25).astype(int)
    judges = {}
    for name, right in (("careful", 0.95), ("quick", 0.85), ("coin", 0.5)):
        keep = rng.random(references.size) < right
        judges[name] = np.where(keep, references, 1 - references)
    # A confidence in percent, in steps of 10 (few distinct values: a cheap compute).
    scores = 10 * np.clip(np.round(10 * (0.3 + 0.4 * references + rng.normal(0, 0.2, references.size))), 1, 9).astype(int)
    paths = {}
    for kind, columns in (("labels", judges), ("scores", {**judges, "confidence": scores})):
        paths[kind] = tmp_path / f"judges_{kind}.csv"
        with open(paths[kind], "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(["references", *columns])
            writer.writerows(zip(references, *columns.values()))
    with served("balanced_accuracy") as (url, _), opened(browser, url) as page:
        page.set_viewport_size({"width": 1280, "height": 4000})  # tall: the JSON pane renders only the lines in view
        page.get_by_role("tab", name="Upload CSV").click()
        assert "one column per judge" in page.locator("#csv").inner_text()
        assert "one column per judge, named after the judge" in page.locator("#csv-help").inner_text()
        assert not page.locator("#ranking").is_visible()

        upload(page, paths["labels"])
        status, failed = compute_in_page(page)
        assert not failed and status.startswith("✓") and "confidence_level=0.95" in status, status
        expected = metric.compute(references=references.tolist(), judges={name: labels.tolist() for name, labels in judges.items()},
                                  confidence_level=0.95)
        shown = result_in_page(page)
        assert shown["judge_ranking"] == as_json(expected["judge_ranking"])
        assert shown["best_judges"] == expected["best_judges"] and "coin" not in shown["best_judges"]
        assert f"Best set ({len(expected['best_judges'])} of 3 judges)" in status
        rows = ranking_in_page(page)
        assert [row[0] for row in rows] == [entry["name"] for entry in expected["judge_ranking"]] and rows[-1][0] == "coin"
        for row, entry in zip(rows, expected["judge_ranking"]):
            low, high = entry["balanced_accuracy_ci"]
            assert row[1:3] == [f"{entry['balanced_accuracy']:.4f}", f"[{low:.4f}, {high:.4f}]"]
            assert row[4] == ("yes" if entry["in_best_set"] else "no")
        assert plot_width(page) > 300  # the forest plot of the simultaneous intervals
        assert_no_traceback(page)
        page.set_viewport_size(LAPTOP)
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "space_balanced_accuracy_judges.png"), full_page=True)

        upload(page, paths["scores"])
        status, failed = compute_in_page(page)
        kind = page.locator("#status .space-status").get_attribute("class")
        assert not status.startswith("✓") and " ok" not in kind and "confidence" in status, (kind, status)
        assert status.startswith("⚠") or (failed and status.startswith("✗")), status
        assert_no_traceback(page)

        # What the message points to: threshold=auto typed in the options ranks the score judge at its
        # cross-fitted value, with the cut to deploy in the table, as a direct compute gives them.
        option_box(page, "threshold", "Basic").fill("auto")
        status, failed = compute_in_page(page)
        kind = page.locator("#status .space-status").get_attribute("class")
        assert not failed and status.startswith("✓") and " ok" in kind and "threshold='auto'" in status, (kind, status)
        expected = metric.compute(references=references.tolist(), threshold="auto", confidence_level=0.95,
                                  judges={name: values.tolist() for name, values in {**judges, "confidence": scores}.items()})
        assert result_in_page(page)["judge_ranking"] == as_json(expected["judge_ranking"])
        (entry,) = [entry for entry in expected["judge_ranking"] if entry["name"] == "confidence"]
        headers = page.evaluate("() => [...document.querySelectorAll('#ranking thead th')].map(cell => cell.innerText.trim())")
        column = next(index for index, header in enumerate(headers) if header.startswith("optimal_threshold"))
        rows = {row[0]: row for row in ranking_in_page(page)}
        assert rows.keys() == {"careful", "quick", "coin", "confidence"}
        assert rows["confidence"][column] == f"{entry['optimal_threshold']:.4g}" and 10 < entry["optimal_threshold"] < 90
        assert all(rows[name][column] == "" for name in judges)  # label judges have no cut
        assert_no_traceback(page)
