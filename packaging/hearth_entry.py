"""The frozen app's entry point (PyInstaller). The network guard goes in first."""

from __future__ import annotations

import multiprocessing
import sys

from guard import egress

egress.install()

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--confine":
        # A tool server's launcher: it confines itself and becomes the server (guard/confine.py).
        from guard.confine import main as confine_main

        sys.exit(confine_main())
    multiprocessing.freeze_support()  # the isolated parser process re-enters here
    if len(sys.argv) > 1 and sys.argv[1] == "--probe-model":
        from inference.probe_child import main as probe_main

        sys.exit(probe_main(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "--quantize-model":
        from inference.quantize_child import main as quantize_main

        sys.exit(quantize_main(sys.argv[2:]))
    from app.__main__ import main

    sys.exit(main())
