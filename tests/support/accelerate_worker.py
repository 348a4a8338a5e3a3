"""One rank of an accelerate job that gathers predictions before ``compute`` (see test_distributed.py).

    python accelerate_worker.py MODULE_FOLDER DATA_NPZ OUTPUT_JSON

Started once per rank with RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT set, as
``accelerate launch`` or ``torchrun`` would; the CPU backend is gloo. The data loader is
sharded by accelerate, which pads the last batch with repeated samples;
``gather_for_metrics`` drops them again, so every rank sees each sample exactly once.
"""

import json
import sys

# With transformers installed, `import evaluate` also imports transformers' pipelines for its
# Evaluator, which no worker here uses: blocking it saves seconds of start-up per process.
sys.modules.setdefault("transformers", None)

import evaluate  # noqa: E402
import numpy as np
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


def main(folder, data_path, output_path):
    accelerator = Accelerator(cpu=True)
    data = np.load(data_path)
    dataset = TensorDataset(torch.as_tensor(data["scores"]), torch.as_tensor(data["references"]))
    loader = accelerator.prepare(DataLoader(dataset, batch_size=8))
    metric = evaluate.load(folder, keep_in_memory=True)
    for scores, references in loader:
        predictions = scores.argmax(-1)  # stands in for the model's forward pass on this rank's shard
        predictions, references = accelerator.gather_for_metrics((predictions, references))
        metric.add_batch(predictions=predictions, references=references)
    result = metric.compute(return_per_class=True)
    if accelerator.is_main_process:
        with open(output_path, "w", encoding="utf-8") as output:
            json.dump({"num_processes": accelerator.num_processes, "result": result}, output)
    accelerator.wait_for_everyone()
    accelerator.end_training()


if __name__ == "__main__":
    main(*sys.argv[1:])
