# Run from the source tree (make test), the package is not installed: put
# src/ on the path and load the plugin the entry point would load. Installed
# (pip install ./python), the installed package and its entry point are used.
import importlib.util
import os
import sys

if importlib.util.find_spec("simabi_fake") is None:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))

pytest_plugins = ["pytester", "simabi_fake.pytest_plugin"]
