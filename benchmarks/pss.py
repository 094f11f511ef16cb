"""Peak memory of one command: PSS summed over its process tree (sampled every 50 ms from /proc),
with each process's share at the peak.

    python benchmarks/pss.py ftlint estimate FILE
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import _pss_kib, _tree_pids


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
    peak, at_peak, start = 0, {}, time.perf_counter()
    while process.poll() is None:
        sizes = {pid: _pss_kib(pid) for pid in _tree_pids(process.pid)}
        if sum(sizes.values()) > peak:
            peak, at_peak = sum(sizes.values()), sizes
        time.sleep(0.05)
    shares = ", ".join(f"{kib / 1024:.0f}" for kib in at_peak.values())
    print(f"peak PSS {peak / 1024:.0f} MiB ({shares}), {time.perf_counter() - start:.1f} s, exit {process.returncode}")


if __name__ == "__main__":
    main()
