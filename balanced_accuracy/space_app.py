# GENERATED FILE: do not edit. Vendored copy of shared/space_app.py.
# Edit the source in shared/ and run `python shared/vendor.py` to refresh every module folder.
"""The Gradio app shared by every module's Space (works on Gradio >= 4, unlike
``evaluate.utils.launch_gradio_widget``, which uses the removed ``gr.inputs``).

Inputs are parsed as data only (JSON, or one value per line / comma-separated), never
evaluated as code; oversized or malformed input gives a readable message, not a traceback.
"""

import json
import re
from pathlib import Path

MAX_INPUT_CHARS = 2_000_000
MAX_VALUES = 200_000


class InputError(ValueError):
    """Input the page reports back to the user."""


def parse_values(text: str, name: str):
    """Parse a list of values: a JSON array, or values separated by new lines or commas."""
    text = (text or "").strip()
    if not text:
        raise InputError(f"{name}: please enter some values.")
    if len(text) > MAX_INPUT_CHARS:
        raise InputError(f"{name}: input too large ({len(text):,} characters; the limit is {MAX_INPUT_CHARS:,}).")
    if text[0] == "[":
        try:
            values = json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(f"{name}: not valid JSON ({error.msg} at character {error.pos}).") from None
    else:
        values = [_parse_scalar(token) for token in re.split(r"[,\n]", text) if token.strip()]
    if not isinstance(values, list):
        raise InputError(f"{name}: expected a list of values.")
    if len(values) > MAX_VALUES:
        raise InputError(f"{name}: too many values ({len(values):,}; the limit is {MAX_VALUES:,}).")
    return values


def _parse_scalar(token: str):
    token = token.strip().strip('"').strip("'")
    for convert in (int, float):
        try:
            return convert(token)
        except ValueError:
            pass
    return token


def parse_options(text: str) -> dict:
    text = (text or "").strip()
    if not text:
        return {}
    if len(text) > 10_000:
        raise InputError("options: input too large.")
    try:
        options = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"options: not valid JSON ({error.msg} at character {error.pos}).") from None
    if not isinstance(options, dict):
        raise InputError('options: expected a JSON object such as {"return_per_class": true}.')
    return options


def card_text(folder: Path) -> str:
    """The metric card without its YAML front matter."""
    text = (folder / "README.md").read_text(encoding="utf-8")
    if text.startswith("---"):
        text = text.split("---", 2)[2]
    return text


def run_metric(metric, predictions_text: str, references_text: str, options_text: str) -> str:
    """Compute and return the result as JSON text; errors come back as a message."""
    try:
        predictions = parse_values(predictions_text, "predictions")
        references = parse_values(references_text, "references")
        options = parse_options(options_text)
        result = metric.compute(predictions=predictions, references=references, **options)
    except (InputError, ValueError, TypeError) as error:
        return json.dumps({"error": str(error)}, indent=2)
    return json.dumps(result, indent=2)


def build_app(metric_name: str, folder, examples):
    """A Blocks app for one metric module; ``examples`` are rows of (predictions, references, options)."""
    import evaluate
    import gradio as gr

    folder = Path(folder)
    metric = evaluate.load(str(folder))
    with gr.Blocks(title=metric_name) as app:
        gr.Markdown(f"# {metric_name}")
        with gr.Row():
            predictions = gr.Textbox(label="predictions", lines=4, placeholder="[0, 1, 1, 0] or one value per line")
            references = gr.Textbox(label="references", lines=4, placeholder="[0, 1, 0, 0] or one value per line")
        options = gr.Textbox(label="options (JSON)", lines=2, placeholder='{"return_per_class": true}')
        button = gr.Button("Compute", variant="primary")
        output = gr.Code(label="result", language="json")
        button.click(
            lambda p, r, o: run_metric(metric, p, r, o), inputs=[predictions, references, options], outputs=output
        )
        gr.Examples(examples=examples, inputs=[predictions, references, options])
        gr.Markdown(card_text(folder))
    return app
