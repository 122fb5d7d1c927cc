"""Start the vramsheet kernel through jupyter_client and collect a cell's outputs.

Shared by the protocol, notebook and language tests. The kernelspec comes from
JUPYTER_PATH (ctest sets it to the build tree's, see kernel/build.cmake);
VS_KERNEL_NAME picks another spec (e.g. "vramsheet-valgrind"), and
VRAMSHEET_KERNEL_PREFIX, when set, is a command line put in front of the
kernel's argv (e.g. "valgrind --error-exitcode=99").

    from vsclient import Kernel
    with Kernel() as k:
        r = k.run("convert 24GB GiB")
        assert r.ok and "22.35 GiB" in r.text
"""
import os
import queue
import shlex
import time

from jupyter_client import KernelManager

KERNEL_NAME = os.environ.get("VS_KERNEL_NAME", "vramsheet")
# Under valgrind everything is slower; tests scale their waits by this.
SLOW = 20.0 if "valgrind" in KERNEL_NAME or os.environ.get("VRAMSHEET_KERNEL_PREFIX") else 1.0


class Result:
    """What one execute_request produced: its reply and its IOPub messages."""

    def __init__(self, reply, messages):
        self.reply = reply
        self.messages = messages  # every IOPub message of the request, in order

    @property
    def content(self):
        return self.reply["content"]

    @property
    def ok(self):
        return self.content["status"] == "ok"

    @property
    def outputs(self):
        """Outputs only: no status and no execute_input."""
        return [m for m in self.messages
                if m["msg_type"] not in ("status", "execute_input")]

    def of_type(self, msg_type):
        return [m for m in self.messages if m["msg_type"] == msg_type]

    @property
    def result(self):
        """The execute_result's MIME bundle, or None."""
        r = self.of_type("execute_result")
        return r[-1]["content"]["data"] if r else None

    @property
    def text(self):
        """All text a person would see: streams, text/plain of results, errors."""
        parts = []
        for m in self.outputs:
            c = m["content"]
            if m["msg_type"] == "stream":
                parts.append(c["text"])
            elif m["msg_type"] in ("execute_result", "display_data", "update_display_data"):
                parts.append(c["data"].get("text/plain", ""))
            elif m["msg_type"] == "error":
                parts.append("%s: %s" % (c["ename"], c["evalue"]))
        return "\n".join(parts)


class Kernel:
    """A running vramsheet kernel with a blocking client."""

    def __init__(self, kernel_name=None, env=None, interrupt_mode=None, timeout=None,
                 stderr=None, transport=None):
        self.kc = None
        kw = {"transport": transport} if transport else {}
        self.km = KernelManager(kernel_name=kernel_name or KERNEL_NAME, **kw)
        spec = self.km.kernel_spec
        prefix = os.environ.get("VRAMSHEET_KERNEL_PREFIX")
        if prefix:
            spec.argv = shlex.split(prefix) + list(spec.argv)
        if interrupt_mode:
            spec.interrupt_mode = interrupt_mode
        full_env = dict(os.environ)
        full_env.update(env or {})
        kw = {"env": full_env}
        if stderr is not None:
            kw["stderr"] = stderr  # e.g. a file, to read the kernel's log lines
        self.km.start_kernel(**kw)
        self.kc = self.km.client()
        self.kc.start_channels()
        try:
            self.kc.wait_for_ready(timeout=timeout or 30 * SLOW)
        except RuntimeError:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.kc is not None:
            self.kc.stop_channels()
            self.kc = None
        if self.km.has_kernel:
            self.km.shutdown_kernel()

    @property
    def pid(self):
        return self.km.provisioner.process.pid

    def collect(self, msg_id, timeout=None):
        """The shell reply and IOPub messages of msg_id, up to its idle status."""
        timeout = timeout or 30 * SLOW
        deadline = time.monotonic() + timeout
        messages = []
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no idle status for %s" % msg_id)
            try:
                m = self.kc.get_iopub_msg(timeout=left)
            except queue.Empty:
                continue
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            messages.append(m)
            if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle":
                break
        return self.reply(msg_id, max(deadline - time.monotonic(), 1)), messages

    def reply(self, msg_id, timeout=None):
        """The shell reply to msg_id (other replies are skipped)."""
        deadline = time.monotonic() + (timeout or 30 * SLOW)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no reply to %s" % msg_id)
            r = self.kc.get_shell_msg(timeout=left)
            if r["parent_header"].get("msg_id") == msg_id:
                return r

    def run(self, code, timeout=None, **kw):
        """Executes code and returns its Result."""
        msg_id = self.kc.execute(code, **kw)
        reply, messages = self.collect(msg_id, timeout)
        return Result(reply, messages)
