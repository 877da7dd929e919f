# The package installs with Debian's Python and nothing else, and works
# without Go: `python3 -m venv v && v/bin/pip install --no-build-isolation
# ./python` (no package index needed), then, with every go hidden from PATH,
# the installed package builds and loads a fake from an empty cache, and
# Debian's pytest finds the plugin through its entry point and runs README's
# example from an empty directory.
import os
import shutil
import subprocess
import sys

import pytest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_EXAMPLE = os.path.join(PYTHON_DIR, "tests", "test_readme.py")
DEBIAN_PYTHON = "/usr/bin/python3"


def path_without_go(tmp_path):
    """PATH with every go and gofmt hidden: a directory holding one is
    replaced by a copy of it made of symbolic links to everything else."""
    out = []
    for i, d in enumerate(os.environ.get("PATH", "").split(os.pathsep)):
        if not d or not any(os.path.exists(os.path.join(d, g)) for g in ("go", "gofmt")):
            out.append(d)
            continue
        shadow = tmp_path / f"path-{i}"
        shadow.mkdir()
        for name in os.listdir(d):
            if name not in ("go", "gofmt"):
                os.symlink(os.path.join(d, name), shadow / name)
        out.append(str(shadow))
    return os.pathsep.join(out)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert r.returncode == 0, f"{cmd}: exit {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


def test_installs_and_works_without_go(tmp_path):
    if not os.path.exists(DEBIAN_PYTHON):
        pytest.skip(f"no {DEBIAN_PYTHON}: the test installs with Debian's Python")
    if subprocess.run([DEBIAN_PYTHON, "-c", "import ensurepip, venv"], capture_output=True).returncode != 0:
        pytest.skip("Debian's python3 has no venv (apt-get install python3-venv)")
    venv = tmp_path / "v"
    run([DEBIAN_PYTHON, "-m", "venv", str(venv)])
    # No index: the install needs nothing but pip and the package.
    run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", PYTHON_DIR],
        env={**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SIMABI_FAKE_CACHE", "GOROOT", "GOPATH")}
    env["PATH"] = path_without_go(tmp_path)
    env["SIMABI_FAKE_CACHE"] = str(tmp_path / "cache")  # empty: the build compiles
    empty = tmp_path / "empty"
    empty.mkdir()
    out = run([str(venv / "bin" / "python"), "-c", """
import shutil, simabi_fake
assert shutil.which("go") is None, shutil.which("go")
fake = simabi_fake.build("refusing", knobs={"status.finalize_device": -7})
assert not fake.cached and fake.runtime_path.startswith(%r), fake
rt = fake.load()
assert rt.lib.simpler_kernel_mode_supported(None) == 0
ctx = rt.lib.create_device_context()
assert rt.lib.finalize_device(ctx) == -7
rt.lib.destroy_device_context(ctx)
print(simabi_fake.__file__)
""" % str(tmp_path / "cache")], cwd=empty, env=env)
    assert out.startswith(str(venv)), f"imported {out.strip()}, not the installed package"

    # Debian's pytest, seen from the venv, loads the installed plugin by its
    # entry point: README's example runs from an empty directory.
    import _pytest

    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(_pytest.__file__))
    shutil.copy(README_EXAMPLE, empty / "test_fake.py")
    out = run([str(venv / "bin" / "python"), "-m", "pytest", "-p", "no:cacheprovider", "-q", "test_fake.py"],
              cwd=empty, env=env)
    assert "2 passed" in out, out
