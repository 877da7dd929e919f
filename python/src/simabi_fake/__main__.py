"""python3 -m simabi_fake install [-knob key=value]... [-cc CC] SIMPLER_ROOT
python3 -m simabi_fake restore SIMPLER_ROOT

gen-fake-runtime install / restore, without Go (docs/fake-runtime.md)."""

import sys

from ._install import main

sys.exit(main(sys.argv[1:]))
