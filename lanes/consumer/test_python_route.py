"""The Python route PyPTO takes to a host runtime (docs/upstream.md, "Upstream's own consumer").

Upstream's ``simpler.task_interface.ChipWorker``, over its nanobind extension
``_task_interface`` built from upstream's source, drives simabi's legacy fake
runtime: init, register, run, unregister, finalize, and refusals that must
carry the runtime's code in ChipWorker's message. lanes/consumer/run builds
the extension and runs this file with Debian's python3:

    SIMABI_CONSUMER_FAKE=OUT/fakes/fake/libhost_runtime.so \\
    SIMABI_CONSUMER_AICPU=OUT/aicpu.bin SIMABI_CONSUMER_AICORE=OUT/aicore.bin \\
    PYTHONPATH=<folder of _task_interface*.so>:SIMPLER_SRC/python \\
        /usr/bin/python3 -m pytest lanes/consumer/test_python_route.py

Without SIMABI_CONSUMER_FAKE every test is skipped.
"""

import ctypes
import os
import types

import pytest

FAKE = os.environ.get("SIMABI_CONSUMER_FAKE", "")
pytestmark = pytest.mark.skipif(not FAKE, reason="SIMABI_CONSUMER_FAKE is not set: lanes/consumer/run sets it")

NBYTES = 256
COPY_BYTES = "simabi.copy_bytes"  # the fake's simulated kernel: tensor 1 = tensor 0 (docs/fake-runtime.md)


@pytest.fixture
def ti():
    import simpler.task_interface as ti  # noqa: PLC0415 (needs PYTHONPATH set by the lane)

    return ti


@pytest.fixture
def worker(ti):
    bins = types.SimpleNamespace(
        host_path=FAKE,
        aicpu_path=os.environ["SIMABI_CONSUMER_AICPU"],
        aicore_path=os.environ["SIMABI_CONSUMER_AICORE"],
        sim_context_path=None,
        dispatcher_path=None,
    )
    w = ti.ChipWorker()
    w.init(device_id=0, bins=bins)
    yield w
    if w.initialized:
        w.finalize()


def copy_bytes_callable(ti):
    """The fake's copy kernel with the signature [IN, OUT], built by upstream's own builder."""
    return ti.ChipCallable.build(
        signature=[ti.ArgDirection.IN, ti.ArgDirection.OUT],
        func_name=COPY_BYTES,
        binary=bytes(64),
        children=[],
    )


def device_tensor(ti, addr):
    return ti.ChipTensor.make(addr, (NBYTES,), ti.DataType.UINT8, child_memory=True)


def test_session(ti, worker):
    assert worker.initialized
    handle = worker.register_callable(copy_bytes_callable(ti))
    src, dst = worker.malloc(NBYTES), worker.malloc(NBYTES)
    pattern = bytes((7 * i + 3) % 256 for i in range(NBYTES))
    host = ctypes.create_string_buffer(pattern, NBYTES)
    worker.copy_to(src, ctypes.addressof(host), NBYTES)
    zero = ctypes.create_string_buffer(NBYTES)
    worker.copy_to(dst, ctypes.addressof(zero), NBYTES)

    args = ti.ChipStorageTaskArgs()
    args.add_tensor(device_tensor(ti, src))
    args.add_tensor(device_tensor(ti, dst))
    worker.run(handle, args, ti.CallConfig())

    out = ctypes.create_string_buffer(NBYTES)
    worker.copy_from(ctypes.addressof(out), dst, NBYTES)
    assert out.raw == pattern  # the run copied tensor 0 into tensor 1

    worker.unregister_callable(handle)
    worker.free(src)
    worker.free(dst)
    worker.finalize()
    assert not worker.initialized


def test_refusals_carry_the_runtime_code(ti, worker):
    handle = worker.register_callable(copy_bytes_callable(ti))
    buf = worker.malloc(NBYTES)

    # One tensor for a callable whose signature has two: the fake refuses the
    # prepare (-1 on a legacy build) and ChipWorker says so with the code.
    args = ti.ChipStorageTaskArgs()
    args.add_tensor(device_tensor(ti, buf))
    with pytest.raises(RuntimeError, match=r"^prepare_native_run failed with code -1 \(run_id=0 "):
        worker.run(handle, args, ti.CallConfig())

    # Below the wrapper's slot allocator, the binding's _ChipWorker: a legacy
    # registry holds ids 0..63 (upstream callable_protocol.h:31), and a live
    # id is not registered twice.
    with pytest.raises(RuntimeError) as e:
        worker._impl.register_callable(64, copy_bytes_callable(ti))
    assert str(e.value) == "register_callable failed with code -1"
    with pytest.raises(RuntimeError) as e:
        worker._impl.register_callable(0, copy_bytes_callable(ti))
    assert str(e.value) == "register_callable failed with code -1"

    worker.unregister_callable(handle)
    worker.free(buf)
    worker.finalize()
    with pytest.raises(RuntimeError) as e:
        worker._impl.init(FAKE, os.environ["SIMABI_CONSUMER_AICPU"], os.environ["SIMABI_CONSUMER_AICORE"], "", 0)
    assert str(e.value) == "ChipWorker already finalized; cannot reinitialize"
