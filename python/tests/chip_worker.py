"""A small kernel-mode consumer of a simpler host runtime, written the way
upstream's ChipWorker handles the lifecycle (docs/contract.md, the C rules):
test_chip_worker.py drives it against simabi fakes.

It keeps the rules the tests check: a kernel init refused with IA or UNSUP
is not finalized, any other failed init is finalized first and torn down
only if that returns 0, else teardown is owed (C-KINIT); while it is owed,
init refuses with IS and only a retried close reaches the context (C-OWED);
a failed kernel finalize is returned and keeps everything for a retry
(C-FIN); after a successful close every operation refuses with IS and no
call reaches the freed context again (C-SINGLE)."""

import ctypes

from simabi_fake import abi


class WorkerError(Exception):
    def __init__(self, what, code):
        super().__init__(f"{what}: {abi.status_name(code)}")
        self.what, self.code = what, code


class ChipWorker:
    def __init__(self, lib, device=0):
        self.lib, self.device = lib, device
        self.ctx = None
        self.initialized = self.closed = self.teardown_owed = False
        self.images = []  # C-IMG: each prepared image lives until a successful close

    def init(self, generation=1):
        if self.closed or self.initialized or self.teardown_owed:
            raise WorkerError("init", abi.INVALID_STATE)
        self.ctx = self.lib.create_device_context()
        rc = self.lib.simpler_kernel_mode_init(self.ctx, self.device, None, 0, None, 0, None, 0,
                                               abi.CallConfig(), generation)
        if rc == 0:
            self.initialized = True
            return
        if rc in (abi.INVALID_ARGUMENT, abi.UNSUPPORTED):
            self._destroy()  # refused before it took anything: no finalize
        elif self.lib.finalize_device(self.ctx) == 0:
            self._destroy()
        else:
            self.teardown_owed = True
        raise WorkerError("init", rc)

    def prepare(self, image):
        if not self.initialized:
            raise WorkerError("prepare", abi.INVALID_STATE)
        cid = ctypes.c_int32()
        rc = self.lib.simpler_kernel_mode_prepare_callable(self.ctx, image, len(image), ctypes.byref(cid))
        if rc != 0:
            raise WorkerError("prepare", rc)
        self.images.append(image)
        return cid.value

    def launch(self, cid, args, stream):
        if not stream:
            raise WorkerError("launch", abi.INVALID_ARGUMENT)
        if not self.initialized:
            raise WorkerError("launch", abi.INVALID_STATE)
        rc = self.lib.simpler_kernel_mode_launch(self.ctx, cid, args, stream)
        if rc != 0:
            raise WorkerError("launch", rc)

    def close(self):
        if self.ctx is None:
            return  # closed already (C-SINGLE), or never initialized
        rc = self.lib.finalize_device(self.ctx)
        if rc != 0:
            self.initialized, self.teardown_owed = False, True
            raise WorkerError("close", rc)
        self._destroy()
        self.closed = True

    def _destroy(self):
        self.lib.destroy_device_context(self.ctx)
        self.ctx = None
        self.initialized = self.teardown_owed = False
        self.images.clear()
