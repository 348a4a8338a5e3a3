"""Every call of ``tests/support/snapshot.py`` gives the stored result: a move inside ``shared/``
changed no number (values exactly, intervals to 1e-12). A change that is meant to change
results writes a fresh snapshot (``python tests/support/snapshot.py write``) in its own commit."""

import snapshot  # tests/support/, on the path from conftest.py
from shared.tooling.modules import MODULE_NAMES


def test_every_call_as_in_the_snapshot():
    differences = snapshot.compare()
    assert not differences, "\n".join(differences[:20])


def test_the_snapshot_covers_every_module_and_the_options_it_promises():
    every = snapshot.calls()
    modules = {module for module, _, _ in every}
    assert modules == set(MODULE_NAMES)  # each module of the registry, by its kind
    ids = " ".join(call_id for _, call_id, _ in every)
    for option in ("ci_method='bootstrap'", "clusters=", "sample_weight=", "baseline_predictions=", "judges=",
                   "return_per_class=True", "threshold=", "average='micro'", "k_list=", "average='macro'",
                   "return_markedness=True", "unlabeled_predictions=", "prevalence_method='ppi'"):
        assert option in ids, option
    assert len(every) >= 300
