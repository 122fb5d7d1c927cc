"""The vramsheet kernel in Debian's jupyter-console, typed at in a pseudo-terminal.

Session 1, /usr/bin/jupyter-console --kernel vramsheet as installed:
  * `convert 24GB GiB` shows 22.35 GiB;
  * `conv` + TAB completes to `convert` (the kernel's complete_reply), and the
    completed line runs;
  * a line ending in `\` opens a continuation line; both run as one cell;
  * `exit`: the console leaves at once (the kernel's ask_exit payload), exits 0
    and the kernel process is gone.
Session 2, the same console through console_relay.py, which keeps the console's
own Ctrl-C relay in place (Debian's 6.4 loses it at the first prompt, for every
kernel: jupyter/jupyter_console#296; Ctrl-C then never reaches the kernel):
  * a `%%kernel-test` cell sleeping far longer than the test is interrupted by
    Ctrl-C: the kernel reports the interruption at once, the next cell evaluates
    within seconds, and Ctrl-D, `y` exits the console cleanly.

The kernelspec comes from JUPYTER_PATH (ctest: the build tree's); config, data,
runtime, IPython and records directories are temporary. Every wait is bounded.
"""
import os
import re
import shutil
import signal
import sys
import tempfile
import time

import pexpect

HERE = os.path.dirname(os.path.abspath(__file__))
CONSOLE = "/usr/bin/jupyter-console"
PYTHON = "/usr/bin/python3"
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78NOM]")
PROMPT = r"In \[(\d+)\]: "
T0 = time.monotonic()
BOUND_S = 75  # the whole test; ctest's TIMEOUT is a little above


def log(*a):
    print("[console %5.1fs]" % (time.monotonic() - T0), *a, flush=True)


class Failure(Exception):
    pass


class Console:
    """A console in a pty; expect() looks at the screen text without escapes."""

    def __init__(self, argv, env, tmp, name):
        self.name = name
        self.tmp = tmp
        self.raw = ""
        self.mark = 0  # expect() searches the text after this offset
        self.child = pexpect.spawn(argv[0], argv[1:], env=env, cwd=tmp, dimensions=(40, 120),
                                   encoding="utf-8", codec_errors="replace", timeout=5)
        self.transcript = open(os.path.join(tmp, name + ".log"), "w")

    def text(self):
        return ANSI.sub("", self.raw)

    def pump(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                chunk = self.child.read_nonblocking(65536, timeout=0.05)
            except pexpect.TIMEOUT:
                continue
            except pexpect.EOF:
                return False
            self.raw += chunk
            self.transcript.write(chunk)
            self.transcript.flush()
        return True

    def expect(self, pattern, seconds, what):
        """Waits (bounded) for pattern in the text after the mark; moves the mark
        past the match and returns it."""
        end = time.monotonic() + min(seconds, max(1, BOUND_S - (time.monotonic() - T0)))
        rx = re.compile(pattern)
        while True:
            text = self.text()
            m = rx.search(text, self.mark)
            if m:
                self.mark = m.end()
                return m
            if time.monotonic() >= end:
                raise Failure("%s: no %s within %.0f s; screen after the last match:\n%s"
                              % (self.name, what, seconds, text[self.mark:][-2000:]))
            if not self.pump(0.1) and not rx.search(self.text(), self.mark):
                raise Failure("%s: the console ended before %s (status %s); screen:\n%s"
                              % (self.name, what, self.exit_status(), self.text()[self.mark:][-2000:]))

    def since(self, offset):
        return self.text()[offset:]

    def send(self, s):
        self.child.send(s)

    def exit_status(self):
        if self.child.isalive():
            return None
        self.child.close()
        return self.child.exitstatus if self.child.signalstatus is None else -self.child.signalstatus

    def stop(self):
        if self.child.isalive():
            self.child.terminate(force=True)
        self.transcript.close()


def kernel_pids(marker):
    """vramsheet kernels whose connection file is in our runtime directory."""
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/cmdline" % d, "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if any(marker.encode() in a for a in argv) and b"kernel" in argv:
                found.append(int(d))
    return found


def wait_no_kernel(runtime, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not kernel_pids(runtime):
            return True
        time.sleep(0.05)
    return False


def prompt_after(con, what, seconds=10):
    return int(con.expect(PROMPT, seconds, "prompt after " + what).group(1))


def exit_cleanly(con, runtime):
    if not kernel_pids(runtime):
        raise Failure("%s: no vramsheet kernel process found before exit" % con.name)
    con.send("\x04")  # Ctrl-D
    con.expect(r"Do you really want to exit \(\[y\]/n\)\?", 5, "the exit question")
    con.send("y\r")
    con.expect(r"Shutting down kernel", 10, "'Shutting down kernel'")
    end = time.monotonic() + 10
    while con.child.isalive() and time.monotonic() < end:
        con.pump(0.1)
    status = con.exit_status()
    if status != 0:
        raise Failure("%s: the console exited with %s" % (con.name, status))
    if not wait_no_kernel(runtime, 5):
        raise Failure("%s: the kernel outlived the console: pids %s" % (con.name, kernel_pids(runtime)))
    log(con.name, "exited 0, kernel gone")


def exit_by_word(con, runtime, word):
    """`exit` or `quit` typed at the prompt: the kernel answers with the
    ask_exit payload, the console leaves at once and shuts the kernel down."""
    if not kernel_pids(runtime):
        raise Failure("%s: no vramsheet kernel process found before %s" % (con.name, word))
    con.send(word + "\r")
    con.expect(r"Shutting down kernel", 10, "'Shutting down kernel' after %s" % word)
    end = time.monotonic() + 10
    while con.child.isalive() and time.monotonic() < end:
        con.pump(0.1)
    status = con.exit_status()
    if status != 0:
        raise Failure("%s: the console exited with %s after %s" % (con.name, status, word))
    if not wait_no_kernel(runtime, 5):
        raise Failure("%s: the kernel outlived the console: pids %s" % (con.name, kernel_pids(runtime)))
    log(con.name, "`%s` left the console (exit 0), kernel gone" % word)


def session_plain(env, tmp):
    runtime = env["JUPYTER_RUNTIME_DIR"]
    con = Console([CONSOLE, "--kernel", "vramsheet"], env, tmp, "jupyter-console")
    try:
        con.expect(r"vramsheet \d+\.\d+\.\d+", 20, "the kernel's banner")
        n = prompt_after(con, "start", 20)
        log("started, banner and In [%d]" % n)

        con.send("convert 24GB GiB\r")
        con.expect(r"Out\[%d\]:" % n, 10, "Out[%d]" % n)
        con.expect(r"24GB = 24,000,000,000 B = 24\.00 GB = 22\.35 GiB", 5, "22.35 GiB")
        n = prompt_after(con, "convert")
        log("convert 24GB GiB -> 22.35 GiB")

        # Completion: `conv` + TAB; the kernel's only match is `convert`. Then the
        # rest of the line, and the completed line must run as `convert ...`.
        con.send("conv")
        con.expect(r"conv", 5, "the typed 'conv'")
        con.send("\t")
        con.expect(r"ert", 5, "'conv' completed to 'convert'")
        time.sleep(0.2)
        con.send(" 2GiB MiB\r")
        start = con.mark
        con.expect(r"Out\[%d\]:" % n, 10, "Out[%d] of the completed line" % n)
        con.expect(r"2048 MiB exactly", 5, "the completed convert's result")
        if "unknown verb" in con.since(start):
            raise Failure("completion: the kernel got an unknown verb:\n" + con.since(start))
        n = prompt_after(con, "the completed line")
        log("conv<TAB> -> convert, ran")

        # A trailing backslash continues the line: the kernel's is_complete says
        # incomplete with an indent, the console opens a continuation line, and
        # the two lines run as one.
        con.send("convert 24GB \\\r")
        con.expect(r"\.\.\.: ", 5, "the continuation prompt")
        # the indent: the cursor set 4 columns past the 8 of the prompt
        if "\x1b[12C" not in con.raw[-400:]:
            raise Failure("no indent on the continuation line:\n%r" % con.raw[-400:])
        if re.search(r"Out\[%d\]:" % n, con.since(con.mark)):
            raise Failure("the continued line ran before its end:\n" + con.since(con.mark))
        con.send("GiB\r")
        con.expect(r"Out\[%d\]:" % n, 10, "Out[%d] of the continued line" % n)
        con.expect(r"22\.35 GiB", 5, "the continued convert's result")
        n = prompt_after(con, "the continued line")
        log("a continued line ran as one")

        exit_by_word(con, runtime, "exit")
    finally:
        con.stop()


def session_interrupt(env, tmp):
    runtime = env["JUPYTER_RUNTIME_DIR"]
    con = Console([PYTHON, os.path.join(HERE, "console_relay.py"), "--kernel", "vramsheet"],
                  env, tmp, "jupyter-console-relay")
    try:
        con.expect(r"vramsheet \d+\.\d+\.\d+", 20, "the kernel's banner")
        n = prompt_after(con, "start", 20)

        # A test cell that sleeps 10 minutes, polling the interrupt flag.
        con.send("%%kernel-test\x0fsleep 600000\r")
        con.expect(r"sleep 600000\s*\r?\n", 5, "the long cell sent")
        time.sleep(1.0)
        if re.search(PROMPT, con.since(con.mark)):
            raise Failure("the long cell ended before Ctrl-C:\n" + con.since(con.mark))
        start = con.mark
        t = time.monotonic()
        con.child.sendintr()
        con.expect(r"(KeyboardInterrupt: )?line 2, column 1: interrupted", 5,
                   "the kernel's interrupted error")
        n2 = prompt_after(con, "the interrupt", 5)
        said = con.since(start)
        if "escaped interact()" in said:
            raise Failure("Ctrl-C escaped the console instead of reaching the kernel:\n" + said)
        log("Ctrl-C: the kernel stopped the cell in %.2f s" % (time.monotonic() - t))
        if n2 != n + 1:
            raise Failure("after the interrupt: In [%d], expected In [%d]" % (n2, n + 1))

        t = time.monotonic()
        con.send("convert 24GB GiB\r")
        con.expect(r"Out\[%d\]:" % n2, 5, "Out[%d] after the interrupt" % n2)
        con.expect(r"22\.35 GiB", 5, "22.35 GiB after the interrupt")
        prompt_after(con, "the cell after the interrupt", 5)
        log("the next cell evaluated in %.2f s" % (time.monotonic() - t))
        if "did not respond" in con.text():
            raise Failure("the kernel missed an is_complete_request:\n" + con.text()[-1500:])

        exit_cleanly(con, runtime)
    finally:
        con.stop()


def main():
    if not os.access(CONSOLE, os.X_OK):
        print("FAIL: %s is not installed (apt-get install jupyter-console)" % CONSOLE)
        return 1
    spec = os.path.join(os.environ.get("JUPYTER_PATH", "").split(os.pathsep)[0],
                        "kernels", "vramsheet", "kernel.json")
    if not os.path.exists(spec):
        print("FAIL: no vramsheet kernelspec at %s (JUPYTER_PATH)" % spec)
        return 1
    def too_long(*_):
        raise Failure("the test ran past %d s" % BOUND_S)
    signal.signal(signal.SIGALRM, too_long)

    def stopped(signum, _frame):
        raise Failure("stopped by signal %d" % signum)
    signal.signal(signal.SIGTERM, stopped)
    signal.alarm(BOUND_S + 5)
    tmp = tempfile.mkdtemp(prefix="vs-console-")
    failed = None
    try:
        for session in (session_plain, session_interrupt):
            sub = os.path.join(tmp, session.__name__)
            for d in ("config", "data", "runtime", "ipython", "home"):
                os.makedirs(os.path.join(sub, d))
            env = dict(os.environ,
                       TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", LANG="C.UTF-8", LC_ALL="C.UTF-8",
                       HOME=os.path.join(sub, "home"),
                       JUPYTER_CONFIG_DIR=os.path.join(sub, "config"),
                       JUPYTER_DATA_DIR=os.path.join(sub, "data"),
                       JUPYTER_RUNTIME_DIR=os.path.join(sub, "runtime"),
                       IPYTHONDIR=os.path.join(sub, "ipython"),
                       VRAMSHEET_RECORDS=os.path.join(sub, "records"),
                       VRAMSHEET_KERNEL_TEST="1",
                       PYTHONDONTWRITEBYTECODE="1", PYDEVD_DISABLE_FILE_VALIDATION="1")
            log("--", session.__name__)
            try:
                session(env, sub)
            except Failure as e:
                failed = e
                for name in os.listdir(sub):
                    if name.endswith(".log"):
                        with open(os.path.join(sub, name), errors="replace") as f:
                            print("---- %s (tail, with escapes) ----\n%r" % (name, f.read()[-3000:]))
                break
            finally:
                for pid in kernel_pids(os.path.join(sub, "runtime")):
                    log("killing leftover kernel", pid)
                    os.kill(pid, signal.SIGKILL)
    finally:
        signal.alarm(0)
        shutil.rmtree(tmp, ignore_errors=True)
    if failed:
        print("FAIL: %s" % failed, flush=True)
        return 1
    log("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
