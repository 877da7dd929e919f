"""A pytest plugin of simabi's unit-suite lane (-p simabi_unitsuite_loads):
writes to $SIMABI_LOADERS_FILE the node id of every test during which a
host runtime was loaded, in the test process or in a child, as the lane's
audit module (loads.c, LD_AUDIT) records each load in $SIMABI_LOADS_FILE."""

import os

import pytest

_LOADS = os.environ.get("SIMABI_LOADS_FILE", "")
_LOADERS = os.environ.get("SIMABI_LOADERS_FILE", "")


def _size():
    try:
        return os.path.getsize(_LOADS)
    except OSError:
        return 0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    before = _size()
    yield
    if _LOADERS and _size() > before:
        with open(_LOADERS, "a", encoding="utf-8") as f:
            f.write(item.nodeid + "\n")
