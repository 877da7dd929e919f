"""A PEP 517 build backend for simabi-fake, on the standard library alone.

It builds a pure-Python wheel of src/ (the package and its generated bundle),
an sdist of the project, and an editable wheel (PEP 660), with the metadata
of pyproject.toml's [project] table.
"""

import base64
import hashlib
import io
import os
import tarfile
import tomllib
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _dist_name(p):
    return p["name"].replace("-", "_")


def _metadata(p):
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}"]
    if "description" in p:
        lines.append(f"Summary: {p['description']}")
    if "requires-python" in p:
        lines.append(f"Requires-Python: {p['requires-python']}")
    for dep in p.get("dependencies", []):
        lines.append(f"Requires-Dist: {dep}")
    return "\n".join(lines) + "\n"


def _entry_points(p):
    out = []
    for group, eps in p.get("entry-points", {}).items():
        out.append(f"[{group}]")
        out += [f"{name} = {target}" for name, target in eps.items()]
        out.append("")
    return "\n".join(out)


def _package_files():
    for dirpath, dirnames, filenames in os.walk(SRC):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.endswith(".egg-info"))
        for name in sorted(filenames):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(dirpath, name)
            yield os.path.relpath(path, SRC).replace(os.sep, "/"), path


def _wheel(wheel_directory, files):
    """Writes a wheel of files ((archive name, bytes)) plus the dist-info."""
    p = _project()
    name = _dist_name(p)
    dist_info = f"{name}-{p['version']}.dist-info"
    files = list(files) + [
        (f"{dist_info}/METADATA", _metadata(p).encode()),
        (f"{dist_info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: simabi_fake_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"),
        (f"{dist_info}/entry_points.txt", _entry_points(p).encode()),
    ]
    record = []
    filename = f"{name}-{p['version']}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for arcname, data in files:
            z.writestr(zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0)), data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{arcname},sha256={digest},{len(data)}")
        record.append(f"{dist_info}/RECORD,,")
        z.writestr(zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(1980, 1, 1, 0, 0, 0)), "\n".join(record) + "\n")
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = []
    for arcname, path in _package_files():
        with open(path, "rb") as f:
            files.append((arcname, f.read()))
    return _wheel(wheel_directory, files)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    name = _dist_name(_project())
    return _wheel(wheel_directory, [(f"__editable__.{name}.pth", (SRC + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = f"{_dist_name(p)}-{p['version']}"
    filename = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        def add(rel):
            tar.add(os.path.join(ROOT, rel), arcname=f"{base}/{rel}",
                    filter=lambda t: None if "__pycache__" in t.name else t)
        for rel in ("pyproject.toml", "build_backend", "src"):
            add(rel)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata(p).encode()
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return filename
