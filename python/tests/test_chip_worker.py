# A consumer in the manner of upstream's ChipWorker tests (tests/ut/py/
# test_chip_worker.py upstream), driven against simabi fakes: every test runs
# in a forked child on a strict fake, so a context the worker leaks, or a
# call it makes on a context it freed, fails the test naming the rule
# ([F-3 context-leak], [F-3 invalid-handle]) instead of passing unnoticed.
import pytest
from chip_worker import ChipWorker, WorkerError
from simabi_fake import abi

pytestmark = pytest.mark.simabi_forked

IMAGE = abi.ChipCallableSpec(signature=[abi.DIR_IN], binary=bytes(64))


def device_args():
    return abi.TaskArgs().add_tensor(abi.ChipTensor(address_space=abi.DEVICE_SPACE))


def test_refused_kernel_init_is_not_finalized(simabi_fake):
    # C-KINIT: UNSUP refused before it took anything; finalize_device must not run.
    rt = simabi_fake("refusing", knobs={"strict": True, "must_not_call": ["finalize_device"]}).load()
    w = ChipWorker(rt.lib)
    with pytest.raises(WorkerError) as e:
        w.init()
    assert e.value.code == abi.UNSUPPORTED
    assert w.ctx is None  # destroyed: nothing leaks at exit


def test_failed_kernel_init_is_finalized_then_destroyed(simabi_fake):
    # C-KINIT, K-7: the init fails creating its streams (fault site 1) after
    # claiming the device; the worker finalizes (0) and destroys.
    rt = simabi_fake(knobs={"strict": True, "fail.init-create": "1:-1000"}).load()
    assert rt.acl.set_device(0) == 0
    w = ChipWorker(rt.lib)
    with pytest.raises(WorkerError) as e:
        w.init()
    assert e.value.code == abi.INTERNAL
    assert (w.ctx, w.teardown_owed) == (None, False)
    w2 = ChipWorker(rt.lib)  # the device claim was released: a new worker gets it
    w2.init(generation=2)
    w2.close()


def test_failed_finalize_is_retried(simabi_fake):
    # C-FIN, C-OWED, K-5: the first finalize fails at a release step and
    # keeps everything; init is refused while teardown is owed; the retried
    # close releases the rest and destroys.
    rt = simabi_fake(knobs={"strict": True, "fail.finalize-release": "1:-1000"}).load()
    assert rt.acl.set_device(0) == 0
    stream = rt.acl.create_stream()
    w = ChipWorker(rt.lib)
    w.init()
    cid = w.prepare(IMAGE.build())
    w.launch(cid, device_args(), stream)
    assert rt.acl.synchronize(stream) == 0
    with pytest.raises(WorkerError) as e:
        w.close()
    assert e.value.code == abi.INTERNAL
    assert w.teardown_owed and w.ctx is not None
    with pytest.raises(WorkerError) as e:
        w.init()
    assert e.value.code == abi.INVALID_STATE  # C-OWED
    w.close()
    assert w.closed and w.ctx is None


def test_destroyed_context_is_never_touched_again(simabi_fake):
    # C-SINGLE: after a successful close every operation refuses with IS
    # before any native call; a call with the freed handle would abort the
    # child with [F-3 invalid-handle].
    rt = simabi_fake(knobs={"strict": True}).load()
    assert rt.acl.set_device(0) == 0
    stream = rt.acl.create_stream()
    w = ChipWorker(rt.lib)
    w.init()
    cid = w.prepare(IMAGE.build())
    w.close()
    for op in (lambda: w.prepare(IMAGE.build()), lambda: w.launch(cid, device_args(), stream), w.init):
        with pytest.raises(WorkerError) as e:
            op()
        assert e.value.code == abi.INVALID_STATE
    w.close()  # closing again is a no-op
