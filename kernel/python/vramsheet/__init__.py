"""vramsheet, installed with pip: where this environment's kernel binary is.

The kernel itself is a C program (``vramsheet/bin/vramsheet`` inside this
package); this module only finds it, so that the kernelspec and the
``vramsheet`` command run the binary of their own environment, never the first
one on ``PATH``.
"""
import os

__all__ = ["binary"]


def binary():
    """The absolute path of the vramsheet binary this package carries."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "vramsheet")
