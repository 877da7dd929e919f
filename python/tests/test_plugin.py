# The pytest plugin: the simabi_fake fixture, and the simabi_forked marker,
# which turns a fake's invariant abort (F-3), a crash or a hang into the
# failure of the one test, naming the rule, while the session goes on.
import os
import re

import simabi_fake
from simabi_fake import _build

PLUGIN = "simabi_fake.pytest_plugin"

INNER = '''
import ctypes
import pytest
from simabi_fake import abi


@pytest.mark.simabi_forked
def test_touches_freed_context(simabi_fake):
    rt = simabi_fake().load()
    ctx = rt.lib.create_device_context()
    rt.lib.destroy_device_context(ctx)
    rt.lib.finalize_device(ctx)  # F-3 invalid-handle: aborts the child


@pytest.mark.simabi_forked
def test_leaks_under_strict(simabi_fake):
    rt = simabi_fake(knobs={"strict": True}).load()
    rt.lib.create_device_context()  # F-3 context-leak, at the child's exit


@pytest.mark.simabi_forked
def test_calls_must_not_call(simabi_fake):
    rt = simabi_fake(knobs=["must_not_call=comm_barrier"]).load()
    rt.lib.comm_barrier(None)


@pytest.mark.simabi_forked
def test_crash_knob(simabi_fake):
    simabi_fake(knobs={"crash.get_runtime_size": True}).load().lib.get_runtime_size()


@pytest.fixture
def hanging(simabi_fake):
    # Built by a fixture, in the test process: the timeout is the body's.
    return simabi_fake(knobs={"hang.get_runtime_size": True})


@pytest.mark.simabi_forked(timeout=1)
def test_hang_knob(hanging):
    hanging.load().lib.get_runtime_size()


@pytest.mark.simabi_forked
def test_assertion_in_child(simabi_fake):
    rt = simabi_fake().load()
    assert rt.lib.simpler_kernel_mode_supported(None) == 0, "supported answered 1"


@pytest.mark.simabi_forked
def test_skip_in_child():
    pytest.skip("skipped in the child")


@pytest.mark.simabi_forked
def test_passes_in_child(simabi_fake):
    rt = simabi_fake().load()
    assert rt.lib.simpler_kernel_mode_supported(None) == 1


def test_session_goes_on():
    pass
'''


def run_inner(pytester, monkeypatch):
    # The inner session imports the package this session tests.
    pkg_parent = os.path.dirname(os.path.dirname(simabi_fake.__file__))
    monkeypatch.setenv("PYTHONPATH", pkg_parent + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # pytester gives the inner session a HOME of its own: keep this one's cache.
    monkeypatch.setenv("SIMABI_FAKE_CACHE", _build.default_cache_dir())
    pytester.makepyfile(test_inner=INNER)
    return pytester.runpytest_subprocess("-p", PLUGIN, "-p", "no:cacheprovider", "-rA")


def test_forked_marker_reports_each_rule_and_goes_on(pytester, monkeypatch):
    result = run_inner(pytester, monkeypatch)
    result.assert_outcomes(passed=2, failed=6, skipped=1)
    out = result.stdout.str()
    for test, line in [
        ("test_touches_freed_context", "[F-3 invalid-handle] the simabi fake runtime aborted in the test: "
                                       "invariant violated: finalize_device called with handle"),
        ("test_leaks_under_strict", "[F-3 context-leak] the simabi fake runtime aborted after the test's body "
                                    "returned (at the child's exit): invariant violated: 1 context(s) still live"),
        ("test_calls_must_not_call", "[F-3 must-not-call] the simabi fake runtime aborted in the test: "
                                     "invariant violated: comm_barrier was called"),
        ("test_crash_knob", "the test's forked child died of SIGABRT: the simabi fake runtime says "
                            "'crash knob: get_runtime_size aborts the process'"),
        ("test_hang_knob", "the test's forked child did not finish within 1 s and was killed\n\n"
                           "its stderr ends:\nsimabi fake runtime: hang knob: get_runtime_size never returns"),
        ("test_assertion_in_child", "AssertionError: supported answered 1"),
    ]:
        assert f"FAILED test_inner.py::{test}" in out, (test, out)
        assert line in out, (test, line, out)
    assert re.search(r"SKIPPED \[1\] test_inner.py:\d+: skipped in the child", out), out
    assert "PASSED test_inner.py::test_passes_in_child" in out
    assert "PASSED test_inner.py::test_session_goes_on" in out


def test_fixture_is_build(simabi_fake):
    import simabi_fake as package

    assert simabi_fake is package.build
