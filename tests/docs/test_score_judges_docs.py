"""docs/ranking-judges.md on score-giving judges: the worked example prints what the page shows,
and the study's figures it quotes are studies/score_judges/results.md's."""

import re
import sys

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "examples"))

import screen_criteria  # noqa: E402


def page():
    return (REPO_ROOT / "docs" / "ranking-judges.md").read_text(encoding="utf-8")


def test_the_screening_example_prints_what_the_page_shows(capsys):
    result = screen_criteria.main()
    printed = capsys.readouterr().out.rstrip()
    assert printed in page()
    assert result["best_judges"] and len(result["judge_ranking"]) == 30
    # Likert criteria carry the cut to deploy; yes/no criteria are labels.
    for entry in result["judge_ranking"]:
        assert ("optimal_threshold" in entry) == entry["name"].startswith("likert_")


def test_the_page_quotes_the_score_judges_study():
    text = (REPO_ROOT / "studies" / "score_judges" / "results.md").read_text(encoding="utf-8")
    rows = [[cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| cell") and "---" not in line]
    assert len(rows) == 10 and all(int(row[1]) in (200, 400) for row in rows) and sum(int(row[1]) == 400 for row in rows) >= 3
    number = (lambda cell: float(re.match(r"([\d.]+)", cell).group(1)))
    coverage, best = min(number(row[2]) for row in rows), min(number(row[3]) for row in rows)
    noise = max(number(row[4]) for row in rows if row[4] != "-")
    in_sample = [number(row[6]) for row in rows if row[6] != "-"]
    quoted = " ".join(page().split())
    assert (f"The lowest family-wise coverage of a cell was {coverage:.3f}, the lowest share of sets whose best set held the "
            f"true best {best:.3f}; the noise judges' mean value was at most {noise:.3f} in every cell (with the cut tuned "
            f"in-sample: {min(in_sample):.3f} to {max(in_sample):.3f}).") in quoted
