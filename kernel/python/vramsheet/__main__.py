"""``python -m vramsheet ARGS`` and the ``vramsheet`` command: run the binary.

The process is replaced (``os.execv``), so the kernel keeps the PID Jupyter
started: interrupts (``interrupt_mode: signal``) and shutdown reach the C kernel
itself, not a Python parent.
"""
import os
import sys

from vramsheet import binary


def main():
    path = binary()
    if not os.access(path, os.X_OK):
        sys.stderr.write("vramsheet: the kernel binary is missing at %s; reinstall the package\n" % path)
        return 127
    os.execv(path, [path] + sys.argv[1:])
    return 127  # not reached: execv returns only by raising


if __name__ == "__main__":
    sys.exit(main())
