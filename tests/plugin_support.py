"""Scratch projects for the pytest plugin's tests: pytest runs on them in a subprocess, with this checkout's dmlsim."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dmlsim.pytest_plugin import MARKER_FILE

ROOT = Path(__file__).resolve().parents[1]


def descriptor_folder(project: Path, name: str = "descriptors") -> Path:
    """A folder of ``project`` that opts in to the plugin with the marker file."""
    folder = project / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER_FILE).touch()
    return folder


def run_pytest(project: Path, *args: str, adapters: str = "reference") -> subprocess.CompletedProcess[str]:
    """``pytest -q -rs ARGS`` in ``project`` (its rootdir), items on ``adapters`` (DMLSIM_TEST_ADAPTERS)."""
    env = {**os.environ, "DMLSIM_TEST_ADAPTERS": adapters,  # this checkout's dmlsim, whatever is installed
           "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "--rootdir",
                           str(project), *args], capture_output=True, text=True, env=env, cwd=project, check=False)
