# A pytest module driving an emitted fake through ctypes (docs/fake-runtime.md).
# FAKE_DIR names a directory written by gen-fake-runtime.
import ctypes
import os

import pytest

IA, IS = -1004, -1003


@pytest.fixture(scope="module")
def fake():
    d = os.environ["FAKE_DIR"]
    # RTLD_LOCAL, as a real consumer loads a runtime; loading it loads
    # libascendcl.so too (DT_NEEDED), and opening that path again returns
    # the same instance.
    rt = ctypes.CDLL(os.path.join(d, "libhost_runtime.so"), mode=os.RTLD_NOW | os.RTLD_LOCAL)
    acl = ctypes.CDLL(os.path.join(d, "libascendcl.so"))
    vp, i32, sz = ctypes.c_void_p, ctypes.c_int32, ctypes.c_size_t
    rt.create_device_context.restype = vp
    rt.destroy_device_context.argtypes = [vp]
    rt.finalize_device.argtypes = [vp]
    rt.simpler_kernel_mode_supported.argtypes = [vp]
    rt.simpler_kernel_mode_init.argtypes = [vp, ctypes.c_int, vp, sz, vp, sz, vp, sz, vp, ctypes.c_uint64]
    rt.simpler_kernel_mode_prepare_callable.argtypes = [vp, vp, sz, ctypes.POINTER(i32)]
    rt.simpler_kernel_mode_launch.argtypes = [vp, i32, vp, vp]
    rt.simabi_set_current_device.argtypes = [i32]
    rt.simabi_sync_stream.argtypes = [vp]
    rt.simabi_inject.argtypes = [i32, i32, i32]
    acl.aclrtCreateStream.argtypes = [ctypes.POINTER(vp)]
    acl.aclrtSynchronizeStream.argtypes = [vp]
    acl.simabi_acl_counters.argtypes = [ctypes.POINTER(ctypes.c_uint64), i32]
    return rt, acl


def aligned(n, align=64):
    raw = ctypes.create_string_buffer(n + align)
    off = (-ctypes.addressof(raw)) % align
    return raw, ctypes.addressof(raw) + off


def minimal_image():
    # ChipCallable: signature[0] = IN @0, sig_count = 1 @1024,
    # binary_size = 64 @1028; 9376-byte header + 64 bytes of binary.
    raw, addr = aligned(9376 + 64)
    ctypes.memmove(addr + 0, (ctypes.c_int32 * 1)(1), 4)
    ctypes.memmove(addr + 1024, (ctypes.c_int32 * 1)(1), 4)
    ctypes.memmove(addr + 1028, (ctypes.c_uint32 * 1)(64), 4)
    return raw, addr, 9376 + 64


def test_supported_and_malformed_prepare(fake):
    rt, _ = fake
    assert rt.simpler_kernel_mode_supported(None) == 1
    ctx = rt.create_device_context()
    out = ctypes.c_int32(1234)
    assert rt.simpler_kernel_mode_prepare_callable(ctx, None, 0, ctypes.byref(out)) == IA
    assert out.value == -1
    rt.destroy_device_context(ctx)


def test_kernel_lifecycle(fake):
    rt, acl = fake
    ctx = rt.create_device_context()
    rt.simabi_set_current_device(0)
    cfg, cfg_addr = aligned(1148)
    assert rt.simpler_kernel_mode_init(ctx, 0, None, 0, None, 0, None, 0, cfg_addr, 1) == 0
    _keep, img, size = minimal_image()
    out = ctypes.c_int32()
    assert rt.simpler_kernel_mode_prepare_callable(ctx, img, size, ctypes.byref(out)) == 0
    assert out.value == 0
    args, args_addr = aligned(33856)
    ctypes.memmove(args_addr + 33792, (ctypes.c_int32 * 1)(1), 4)  # tensor_count
    ctypes.memmove(args_addr + 43, b"\x01", 1)                      # tensors[0].address_space = DEVICE
    stream = ctypes.c_void_p()
    assert acl.aclrtCreateStream(ctypes.byref(stream)) == 0
    assert rt.simpler_kernel_mode_launch(ctx, 0, args_addr, stream) == 0
    assert acl.aclrtSynchronizeStream(stream) == 0
    assert rt.finalize_device(ctx) == 0
    rt.destroy_device_context(ctx)
    counts = (ctypes.c_uint64 * 9)()
    assert acl.simabi_acl_counters(counts, 9) == 9
    assert counts[3] == 0  # aclrtResetDevice never ran on the kernel path (D-1)
