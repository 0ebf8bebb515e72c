"""A fork server for the mutation harness (tools/mutants.py): imports the heavy third-party modules a pytest run
needs once (pytest, hypothesis, numpy, onnx, yaml), then forks a child per request, which runs the
given Python code with the given working folder, environment, ``sys.argv`` and ``sys.path`` head.

Why: a mutant's pytest run spends about two seconds before its first test (the interpreter, pytest's and
hypothesis's imports: hypothesis alone is a second), more than most mutants' tests take. Forked from a process
that has them imported, a run starts in milliseconds; over 1,100 mutants that is a quarter of an hour of CI.

What makes forking safe here: this process imports no ``dmlsim`` (each child imports the scratch copy's, which
the harness's guard checks), and no ``pyopencl``: each child loads the OpenCL loader itself, after it has set
its environment (``OCL_ICD_VENDORS``). With pyopencl imported here, the children's pytest runs crashed with
SIGSEGV before their first test (PoCL 3.1); the import is a third of a second, so it stays in the child. This
process starts no thread of its own.

Protocol, one JSON object per line. In on stdin: ``{"id", "cwd", "env", "argv", "path", "out", "code"}``; out
on stdout: ``{"id", "pid"}`` once the child is forked, ``{"id", "status"}`` (its exit code, negative for a
signal, as ``subprocess`` gives it) once it has ended. The child leads a session of its own (the harness
kills its process group on a timeout) and writes stdout and stderr to the file ``out``. End of stdin ends the
server.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import sys
import traceback

PRELOAD = ("pytest", "_hypothesis_pytestplugin", "hypothesis", "hypothesis.strategies", "hypothesis.extra.numpy",
           "numpy", "pytools", "yaml", "onnx", "onnx.reference", "xdist")


def preload() -> None:
    """Import what is installed of PRELOAD (a missing one is imported, or not, by the child as usual)."""
    for name in PRELOAD:
        with contextlib.suppress(Exception):  # not installed, or unusable here: the child finds out itself
            importlib.import_module(name)


def child(request: dict) -> None:
    """In the forked child: become the requested process and run its code; never returns."""
    code = 1
    try:
        os.setsid()
        out = os.open(request["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[:0] = request["path"]
        sys.argv = ["-c", *request["argv"]]
        sys.dont_write_bytecode = True
        exec(compile(request["code"], "<forked run>", "exec"), {"__name__": "__main__"})  # noqa: S102 - python -c
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    except BaseException:  # reported in the run's output, as an interpreter would
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def send(message: dict) -> None:
    os.write(1, (json.dumps(message) + "\n").encode())


def serve() -> None:
    """Fork a child per request line, report each one's pid and, once reaped, its exit status."""
    children: dict[int, int] = {}
    pending = b""
    stdin = sys.stdin.fileno()
    open_ = True
    while open_ or children:
        ready, _, _ = select.select([stdin] if open_ else [], [], [], 0.02 if children else None)
        if ready:
            chunk = os.read(stdin, 1 << 16)
            open_ = bool(chunk)
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                request = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    child(request)
                children[pid] = request["id"]
                send({"id": request["id"], "pid": pid})
        while children:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            send({"id": children.pop(pid), "status": os.waitstatus_to_exitcode(status)})


if __name__ == "__main__":
    preload()
    send({"ready": True})
    serve()
