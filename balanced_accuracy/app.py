"""Hugging Face Space for the balanced_accuracy metric."""

from pathlib import Path

from space_app import build_app

EXAMPLES = [
    ["[0, 1, 0, 0]", "[0, 1, 1, 0]", '{"task": "binary"}'],
    ["[0, 2, 2, 1]", "[0, 1, 2, 1]", '{"return_per_class": true, "sample_weight": [1, 0.5, 1, 1]}'],
    ['["safe", "unsafe", "unsafe", "safe"]', '["safe", "unsafe", "safe", "safe"]', '{"return_per_class": true}'],
    ["[0.2, 0.9, 0.1, 0.3]", "[0, 1, 1, 0]", '{"threshold": "auto"}'],
]

app = build_app("balanced_accuracy", Path(__file__).parent, EXAMPLES)

if __name__ == "__main__":
    app.launch()
