"""Run a measurement in a fresh interpreter and read back what it found.

Benchmarks that compare versions or settings time each in a process of its own
(memory a process has touched once is cheap to reuse, and a module imported once
stays imported); the child prints its result as JSON on its last line.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any


def child_result(command: Sequence[str], env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Run ``command``; return the JSON object on the last line of its output.

    Parameters
    ----------
    command : sequence of str
        The child's command line.
    env : mapping, optional
        Its environment (default: this one's).

    Returns
    -------
    dict
    """
    environment = None if env is None else dict(env)
    out = subprocess.run(list(command), capture_output=True, text=True, check=True, env=environment)
    return json.loads(out.stdout.strip().splitlines()[-1])
