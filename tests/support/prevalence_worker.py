"""One worker of a distributed informedness evaluation with a judge's unlabeled labels and groups.

    python prevalence_worker.py CASE_JSON NUM_PROCESS PROCESS_ID CACHE_DIR RUN_ID OUTPUT_JSON

The worker loads the module with evaluate's multi-process arguments, adds its contiguous
shard of the golden set (with its groups) in one batch and its shard of the unlabeled
labels in a batch of their own, and calls ``compute``. Only process 0 gets a result.
"""

import json
import sys

sys.modules.setdefault("transformers", None)  # see distributed_worker.py

import evaluate  # noqa: E402
import numpy as np  # noqa: E402


def shard(values, num_process, process_id):
    return np.array_split(np.asarray(values), num_process)[process_id].tolist()


def main(case_path, num_process, process_id, cache_dir, run_id, output_path):
    case = json.loads(open(case_path, encoding="utf-8").read())
    num_process, process_id = int(num_process), int(process_id)
    metric = evaluate.load(case["folder"], num_process=num_process, process_id=process_id, experiment_id=run_id,
                           cache_dir=cache_dir)
    part = {name: shard(case[name], num_process, process_id) for name in ("predictions", "references", "groups")}
    metric.add_batch(**part)
    metric.add_batch(
        unlabeled_predictions=shard(case["unlabeled_predictions"], num_process, process_id),
        unlabeled_baseline_predictions=shard(case["unlabeled_baseline_predictions"], num_process, process_id),
    )
    result = metric.compute(**case["kwargs"])
    with open(output_path, "w", encoding="utf-8") as output:
        json.dump(result, output)


if __name__ == "__main__":
    main(*sys.argv[1:])
