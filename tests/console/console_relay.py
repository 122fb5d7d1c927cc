"""Debian's jupyter-console, with its own Ctrl-C relay kept in place.

jupyter-console 6.4 relays Ctrl-C to the kernel from a SIGINT handler that it
installs once at start-up (ZMQTerminalIPythonApp.handle_sigint). prompt_toolkit
>= 3.0.25 installs its own SIGINT handler for the duration of every prompt and
then puts back Python's default one, so from the first prompt on Ctrl-C raises
KeyboardInterrupt in the console ("KeyboardInterrupt escaped interact()") and
the kernel, in its own session, never hears of it: upstream
jupyter/jupyter_console#296 (fix proposed in #295), seen with every kernel.

This launcher changes nothing else: before each cell it puts the console's own
handler back, as the console means it to be, then runs the installed
jupyter_console unchanged. Arguments are jupyter-console's.
"""
import signal
import sys

from jupyter_console import app
from jupyter_console.ptshell import ZMQTerminalInteractiveShell

_run_cell = ZMQTerminalInteractiveShell.run_cell


def run_cell(self, cell, store_history=True):
    if app.ZMQTerminalIPythonApp.initialized():
        signal.signal(signal.SIGINT, app.ZMQTerminalIPythonApp.instance().handle_sigint)
    return _run_cell(self, cell, store_history)


ZMQTerminalInteractiveShell.run_cell = run_cell

if __name__ == "__main__":
    sys.argv[0] = "jupyter-console"
    sys.exit(app.main())
