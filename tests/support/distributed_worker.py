"""One worker of a distributed evaluation, as each GPU/node of a job runs it (see test_distributed.py).

    python distributed_worker.py CASES_JSON NUM_PROCESS PROCESS_ID CACHE_DIR RUN_ID OUTPUT_JSON

For every case, the worker loads the module with evaluate's multi-process arguments, adds
its contiguous shard of the data (and of any per-sample inputs) in two batches, and its
shard of any inputs not aligned with the samples (a judge's labels on unlabeled data) in a
batch of their own, and calls ``compute``. Only process 0 gets a result; the others get
None. The results go to OUTPUT_JSON. ``processes.run_distributed`` starts the workers.
"""

import json
import sys

# With transformers installed, `import evaluate` also imports transformers' pipelines for its
# Evaluator, which no worker here uses: blocking it saves seconds of start-up per process.
sys.modules.setdefault("transformers", None)

import evaluate  # noqa: E402
import numpy as np


def main(cases_path, num_process, process_id, cache_dir, run_id, output_path):
    cases = json.loads(open(cases_path, encoding="utf-8").read())
    num_process, process_id = int(num_process), int(process_id)
    results = {}
    for case in cases:
        metric = evaluate.load(
            case["folder"],
            num_process=num_process,
            process_id=process_id,
            experiment_id=f"{run_id}-{case['id']}",
            cache_dir=cache_dir,
            **case.get("load", {}),  # load-time options (e.g. confidence_level, so add_batch counts clusters)
        )
        shard = (lambda values: {name: shard(member) for name, member in values.items()} if isinstance(values, dict)
                 else np.array_split(np.asarray(values), num_process)[process_id])
        part = (lambda values, rows: {name: part(member, rows) for name, member in values.items()} if isinstance(values, dict)
                else values[rows])
        predictions = None if case.get("predictions") is None else shard(case["predictions"])
        references = shard(case["references"])
        # Per-sample inputs (sample_weight, baseline_predictions, each judge's labels), sharded like the predictions.
        inputs = {name: shard(values) for name, values in case.get("inputs", {}).items()}
        half = len(references) // 2
        for rows in (slice(None, half), slice(half, None)):
            metric.add_batch(predictions=None if predictions is None else predictions[rows], references=references[rows],
                             **{name: part(values, rows) for name, values in inputs.items()})
        # Inputs not aligned with the samples (a judge's labels on unlabeled data; a mapping of models: each model's split).
        unaligned = {name: shard(values) for name, values in case.get("unaligned", {}).items()}
        if unaligned:
            metric.add_batch(**unaligned)
        results[case["id"]] = metric.compute(**case["kwargs"])
    with open(output_path, "w", encoding="utf-8") as output:
        json.dump(results, output)


if __name__ == "__main__":
    main(*sys.argv[1:])
