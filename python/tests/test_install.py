# The package installs with Debian's Python and nothing else, and works
# without Go: the install steps of README.md (the sh block marked "run by:
# python/tests/test_install.py") run as written, line by line, in a scratch
# directory that holds a copy of python/ and README's example as
# test_fake.py, with Debian's /usr/bin/python3 as python3, every go hidden
# from PATH and no package index. docs/fake-runtime.md shows the same
# commands. Then the installed package builds and loads a fake from an empty
# cache.
import os
import re
import shutil
import subprocess

import pytest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(PYTHON_DIR)
README_EXAMPLE = os.path.join(PYTHON_DIR, "tests", "test_readme.py")
DEBIAN_PYTHON = "/usr/bin/python3"
MARKER = "<!-- run by: python/tests/test_install.py -->"


def install_steps(doc):
    """The commands of doc's block marked MARKER, comments dropped."""
    with open(os.path.join(REPO, doc)) as f:
        text = f.read()
    m = re.search(re.escape(MARKER) + r"\n```sh\n(.*?)```", text, re.S)
    assert m, f"{doc} has no sh block after {MARKER}"
    steps = [line.split("#", 1)[0].strip() for line in m.group(1).splitlines()]
    return [s for s in steps if s]


def path_without_go(tmp_path):
    """PATH with every go and gofmt hidden (a directory holding one is
    replaced by a copy of it made of symbolic links to everything else),
    after a directory whose python3 is Debian's."""
    first = tmp_path / "path-python3"
    first.mkdir()
    os.symlink(DEBIAN_PYTHON, first / "python3")
    out = [str(first)]
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


def test_the_documents_show_the_same_steps():
    steps = install_steps("README.md")
    assert steps[0].startswith("python3 -m venv --system-site-packages "), steps
    assert install_steps("docs/fake-runtime.md") == steps


def test_installs_as_documented_and_works_without_go(tmp_path):
    if not os.path.exists(DEBIAN_PYTHON):
        pytest.skip(f"no {DEBIAN_PYTHON}: the steps are Debian's")
    if subprocess.run([DEBIAN_PYTHON, "-c", "import ensurepip, venv"], capture_output=True).returncode != 0:
        pytest.skip("Debian's python3 has no venv (apt-get install python3-venv)")
    if subprocess.run([DEBIAN_PYTHON, "-m", "pytest", "--version"], capture_output=True).returncode != 0:
        pytest.skip("Debian's python3 has no pytest (apt-get install python3-pytest)")
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copytree(PYTHON_DIR, checkout / "python",
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", "build", "*.egg-info"))
    shutil.copy(README_EXAMPLE, checkout / "test_fake.py")

    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "SIMABI_FAKE_CACHE", "GOROOT", "GOPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env.update(PATH=path_without_go(tmp_path), SIMABI_FAKE_CACHE=str(tmp_path / "cache"),
               PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    out = ""
    for step in install_steps("README.md"):
        out = run(["sh", "-c", step], cwd=checkout, env=env)
    assert re.search(r"\b2 passed\b", out), out

    # The installed package, not a source tree, from an empty directory and
    # an empty cache: the build compiles, and no go is needed.
    empty = tmp_path / "empty"
    empty.mkdir()
    out = run([str(checkout / ".venv" / "bin" / "python"), "-c", """
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
    assert out.startswith(str(checkout / ".venv")), f"imported {out.strip()}, not the installed package"
