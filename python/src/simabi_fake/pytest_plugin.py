"""pytest plugin of simabi_fake (registered through the pytest11 entry point
when the package is installed; ``-p simabi_fake.pytest_plugin`` otherwise).

- fixture ``simabi_fake``: simabi_fake.build, to call with a profile, knobs
  and a mutant; it returns a Fake whose load() gives the ctypes view.
- marker ``simabi_forked(timeout=None)``: the test's body runs in a forked
  child process (its fixtures are set up and torn down in the test process),
  so that a fake runtime's invariant abort, a crash knob or a crash becomes
  this test's failure, naming the rule ("[F-3 invalid-handle] ..."), instead
  of killing the test process. The child ends as a process ends: a strict
  fake's context-leak check runs at its exit. With a timeout in seconds, a
  child that has not finished by then is killed and the test fails.
"""

from __future__ import annotations

import ctypes
import faulthandler
import json
import os
import re
import select
import signal
import sys
import tempfile
import time

import pytest

from simabi_fake import build as _build

_MARKER = "simabi_forked"
_INVARIANT = re.compile(r"simabi fake runtime: invariant violated \[(F-\d+) ([\w-]+)\]: (.*)")
_FAKE_LINE = re.compile(r"simabi fake runtime: (.*)")
_in_child = False


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        f"{_MARKER}(timeout=None): run the test's body in a forked child process, so that a simabi fake's "
        "invariant abort ([F-3 ...]) or crash fails the test, naming the rule, instead of killing the test process")


@pytest.fixture(scope="session")
def simabi_fake():
    """simabi_fake.build: simabi_fake(profile="tmr", knobs=None, mutant=None) -> Fake."""
    return _build


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    marker = pyfuncitem.get_closest_marker(_MARKER)
    if marker is None or _in_child:
        return None
    timeout = marker.kwargs.get("timeout", marker.args[0] if marker.args else None)
    _run_forked(pyfuncitem, timeout)
    return True


def _child(item, report, err) -> None:
    """The forked child: runs the test function, writes the outcome to
    report, and exits as a process does (C exit: library destructors run)."""
    global _in_child
    _in_child = True
    code = 0
    try:
        # The abort is the fake's report, not Python's: no faulthandler dump.
        faulthandler.disable()
        os.dup2(err.fileno(), 2)
        try:
            item.ihook.pytest_pyfunc_call(pyfuncitem=item)
            outcome = {"outcome": "passed"}
        except pytest.skip.Exception as e:
            outcome = {"outcome": "skipped", "text": str(e.msg)}
        except BaseException:
            excinfo = pytest.ExceptionInfo.from_current()
            outcome = {"outcome": "failed", "text": str(item.repr_failure(excinfo))}
            code = 1
        report.write(json.dumps(outcome).encode())
        report.flush()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        code = 3
    finally:
        ctypes.CDLL(None).exit(code)
        os._exit(code)  # not reached


def _wait(pid: int, timeout: float | None) -> int | None:
    """The child's wait status, or None when it outlived timeout (it is then
    killed)."""
    if timeout is None:
        return os.waitpid(pid, 0)[1]
    deadline = time.monotonic() + timeout
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    try:
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return None
            if fd is not None:
                select.select([fd], [], [], left)
            else:
                time.sleep(min(left, 0.05))
    finally:
        if fd is not None:
            os.close(fd)


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        return f"died of {name}"
    return f"exited with status {os.WEXITSTATUS(status)}"


def _run_forked(item, timeout) -> None:
    with tempfile.TemporaryFile() as report, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(item, report, err)
        status = _wait(pid, timeout)
        report.seek(0)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace")
        raw = report.read()
    if stderr:
        sys.stderr.write(stderr)  # the child's stderr, in the test's captured output
    outcome = json.loads(raw) if raw else None
    if status is None:
        pytest.fail(f"the test's forked child did not finish within {timeout} s and was killed"
                    + _tail(stderr), pytrace=False)
    invariants = [m for m in map(_INVARIANT.search, stderr.splitlines()) if m]
    if invariants:
        m = invariants[0]
        when = ("after the test's body returned (at the child's exit)"
                if outcome and outcome["outcome"] == "passed" else "in the test")
        msg = (f"[{m.group(1)} {m.group(2)}] the simabi fake runtime aborted {when}: invariant violated: {m.group(3)}"
               f" (the child {_describe(status)})")
        if outcome and outcome["outcome"] == "failed":
            msg += "\n\n" + outcome["text"]
        pytest.fail(msg, pytrace=False)
    crashed = not (os.WIFEXITED(status) and os.WEXITSTATUS(status) in (0, 1))
    if crashed or outcome is None:
        fake = [m.group(1) for m in map(_FAKE_LINE.search, stderr.splitlines()) if m]
        why = f": the simabi fake runtime says {fake[0]!r}" if fake else ""
        pytest.fail(f"the test's forked child {_describe(status)}{why}" + _tail(stderr), pytrace=False)
    if outcome["outcome"] == "skipped":
        try:  # reported at the test, not here
            raise pytest.skip.Exception(outcome["text"], _use_item_location=True)
        except TypeError:
            pytest.skip(outcome["text"])
    if outcome["outcome"] == "failed":
        pytest.fail(outcome["text"], pytrace=False)


def _tail(stderr: str, lines: int = 20) -> str:
    if not stderr.strip():
        return ""
    return "\n\nits stderr ends:\n" + "\n".join(stderr.rstrip().splitlines()[-lines:])
