# test_fake.py: pytest tests against simabi's fake runtime, with no Go installed:
#   .venv/bin/pip install --no-build-isolation ./python   (README.md: the venv, in a simabi checkout)
#   .venv/bin/python -m pytest test_fake.py
import ctypes

import pytest
from simabi_fake import abi


def test_malformed_prepare(simabi_fake):
    rt = simabi_fake(profile="tmr").load()  # rt.lib: the runtime, every entry declared; rt.acl: the fake ACL
    ctx = rt.lib.create_device_context()
    out = ctypes.c_int32(1234)
    assert rt.lib.simpler_kernel_mode_prepare_callable(ctx, None, 0, ctypes.byref(out)) == abi.INVALID_ARGUMENT
    assert out.value == -1  # V-PREP-1
    rt.lib.destroy_device_context(ctx)


@pytest.mark.simabi_forked  # the fake's invariant aborts fail this test, naming the rule
def test_no_context_outlives_the_test(simabi_fake):
    rt = simabi_fake(knobs={"strict": True}).load()  # strict: a context still live at exit aborts
    ctx = rt.lib.create_device_context()
    rt.lib.destroy_device_context(ctx)
