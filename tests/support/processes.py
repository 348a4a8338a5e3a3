"""Run the cases of ``distributed_worker.py`` in real OS processes, as a distributed job does."""

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, Dict, List

WORKER = Path(__file__).resolve().parent / "distributed_worker.py"


def run_distributed(cases: List[Dict[str, Any]], num_process: int, folder: Path) -> List[Dict[str, Any]]:
    """Each process's results (``{case id: result}``; None for every case but on process 0).

    The processes share one cache folder under ``folder``, as the nodes of a job share a
    file system, and one run id, so each case's processes meet at evaluate's rendez-vous.
    """
    cases_path = folder / "cases.json"
    cases_path.write_text(json.dumps(cases), encoding="utf-8")
    run_id = uuid.uuid4().hex
    workers = [
        subprocess.Popen([sys.executable, str(WORKER), str(cases_path), str(num_process), str(rank),
                          str(folder / "shared-cache"), run_id, str(folder / f"rank{rank}.json")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for rank in range(num_process)
    ]
    outputs = [worker.communicate(timeout=300) for worker in workers]
    for rank, (worker, (_, stderr)) in enumerate(zip(workers, outputs)):
        assert worker.returncode == 0, f"rank {rank} failed:\n{stderr}"
    return [json.loads((folder / f"rank{rank}.json").read_text()) for rank in range(num_process)]
