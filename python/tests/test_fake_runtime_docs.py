# test_consumer.py: pytest tests of a consumer's calls against simabi's fake
# runtime (docs/fake-runtime.md). Install the package once, in a simabi
# checkout (it needs a C compiler, not Go), as the document says; then run:
#   .venv/bin/python -m pytest test_consumer.py
import ctypes
import struct

import pytest
from simabi_fake import abi


@pytest.fixture
def rt(simabi_fake):
    # The plain tmr runtime; unloaded after the test.
    with simabi_fake(profile="tmr").load() as rt:
        yield rt


def test_malformed_prepare(rt):
    assert rt.lib.simpler_kernel_mode_supported(None) == 1
    ctx = rt.lib.create_device_context()
    out = ctypes.c_int32(1234)
    assert rt.lib.simpler_kernel_mode_prepare_callable(ctx, None, 0, ctypes.byref(out)) == abi.INVALID_ARGUMENT
    assert out.value == -1  # V-PREP-1: -1 on every failure
    rt.lib.destroy_device_context(ctx)


def add_one_half(lib, acl, ctx, stream, values):
    """Prepares simabi.add_scalar_f32, launches it on values (+0.5) and
    synchronizes; returns the launch's status and the output."""
    spec = abi.ChipCallableSpec(signature=[abi.DIR_IN, abi.DIR_OUT, abi.DIR_SCALAR],
                                func_name=abi.KERNEL_ADD_SCALAR_F32, binary=bytes(64))
    img = spec.build()  # 16-byte aligned, as prepare requires
    cid = ctypes.c_int32()
    assert lib.simpler_kernel_mode_prepare_callable(ctx, img, len(img), ctypes.byref(cid)) == 0
    n = len(values)
    src, dst = acl.malloc(4 * n), acl.malloc(4 * n)  # device memory: real host addresses
    ctypes.memmove(src, struct.pack(f"<{n}f", *values), 4 * n)
    args = abi.TaskArgs()
    args.add_tensor(abi.contiguous_tensor(src, abi.DTYPE_FLOAT32, n))
    args.add_tensor(abi.contiguous_tensor(dst, abi.DTYPE_FLOAT32, n))
    args.add_scalar_float32(0.5)
    rc = lib.simpler_kernel_mode_launch(ctx, cid.value, args, stream)
    assert acl.synchronize(stream) == 0  # runs the launch's simulated kernel
    out = struct.unpack(f"<{n}f", ctypes.string_at(dst, 4 * n))
    assert acl.free(src) == 0 and acl.free(dst) == 0
    return rc, out


def test_kernel_lifecycle(rt):
    lib, acl = rt.lib, rt.acl
    assert acl.set_device(0) == 0  # the caller owns the current device (D-1, D-2)
    stream = acl.create_stream()
    ctx = lib.create_device_context()
    assert lib.simpler_kernel_mode_init(ctx, 0, None, 0, None, 0, None, 0, abi.CallConfig(), 1) == 0
    rc, out = add_one_half(lib, acl, ctx, stream, [1, 2, 3, 4])
    assert (rc, out) == (0, (1.5, 2.5, 3.5, 4.5))
    before = acl.counters()
    assert lib.finalize_device(ctx) == 0
    lib.destroy_device_context(ctx)
    assert acl.d1_calls_since(before) == []  # D-1: the kernel finalize left the device alone
    assert acl.destroy_stream(stream) == 0


def test_launch_failure_reaches_the_consumer(simabi_fake):
    # A knob fixes what an entry returns; -93 is a code only the fake produces.
    with simabi_fake(knobs={"status.simpler_kernel_mode_launch": -93}).load() as rt:
        assert rt.acl.set_device(0) == 0
        stream = rt.acl.create_stream()
        ctx = rt.lib.create_device_context()
        assert rt.lib.simpler_kernel_mode_init(ctx, 0, None, 0, None, 0, None, 0, abi.CallConfig(), 1) == 0
        rc, _ = add_one_half(rt.lib, rt.acl, ctx, stream, [1])
        assert rc == -93
        assert rt.lib.finalize_device(ctx) == 0
        rt.lib.destroy_device_context(ctx)


def test_injected_fault(rt):
    # simabi_inject arms a fault site at run time: the next prepare fails at
    # its copy step (site 2) with INTERNAL and leaves -1 in the id.
    assert rt.acl.set_device(0) == 0
    ctx = rt.lib.create_device_context()
    assert rt.lib.simpler_kernel_mode_init(ctx, 0, None, 0, None, 0, None, 0, abi.CallConfig(), 1) == 0
    assert rt.lib.simabi_inject(abi.SITES["prepare-copy"], 1, abi.INTERNAL) == 0
    img = abi.ChipCallableSpec(signature=[abi.DIR_IN], binary=bytes(64)).build()
    cid = ctypes.c_int32(7)
    assert rt.lib.simpler_kernel_mode_prepare_callable(ctx, img, len(img), ctypes.byref(cid)) == abi.INTERNAL
    assert cid.value == -1
    assert rt.lib.finalize_device(ctx) == 0
    rt.lib.destroy_device_context(ctx)


@pytest.mark.simabi_forked  # runs in a child: an invariant abort fails this test, naming the rule
def test_refused_init_is_not_finalized(simabi_fake):
    # strict: a context still live at exit aborts; must_not_call: so does a
    # call of finalize_device. A consumer whose kernel init is refused with
    # UNSUPPORTED destroys the context without finalizing it (C-KINIT).
    rt = simabi_fake("refusing", knobs={"strict": True, "must_not_call": ["finalize_device"]}).load()
    ctx = rt.lib.create_device_context()
    assert rt.lib.simpler_kernel_mode_init(ctx, 0, None, 0, None, 0, None, 0, abi.CallConfig(), 1) == abi.UNSUPPORTED
    rt.lib.destroy_device_context(ctx)
