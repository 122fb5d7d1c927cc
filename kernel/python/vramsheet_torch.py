"""vramsheet_torch — name phases and report PyTorch's memory counters to vramsheet.

Under ``measure ... -- python3 train.py`` (or ``vramsheet probe``) the kernel passes
the number of a file descriptor in ``VRAMSHEET_PHASE_FD``; this module writes the
lines it reads there::

    phase NAME
    dims length=N concurrency=N ...
    counter NAME BYTES gpu=I

Usage::

    import vramsheet_torch as vs

    vs.dims(length=4096, concurrency=8)
    with vs.phase("load"):
        model = load()
    with vs.phase("generate"):
        out = model.generate(...)

On leaving each phase it writes ``torch.cuda.max_memory_allocated`` (scope
"tensors") and ``torch.cuda.max_memory_reserved`` (scope "allocator") of every
visible device, then resets the peaks so the next phase starts afresh. The two
are different scopes of the same memory: vramsheet never adds them. GPU indices
are NVML's: a device's UUID is sent when torch knows it, else the index is mapped
through CUDA_VISIBLE_DEVICES.

Without ``VRAMSHEET_PHASE_FD`` (an ordinary run) every call does nothing, and it
never imports torch by itself: a program without torch can still name phases.
"""

import os
import sys

__all__ = ["enabled", "phase", "begin", "end", "dims", "counter", "report_torch"]

_fd = None
_warned = False


def _phase_fd():
    global _fd
    if _fd is None:
        value = os.environ.get("VRAMSHEET_PHASE_FD", "")
        try:
            _fd = int(value) if value else -1
        except ValueError:
            _fd = -1
    return _fd


def enabled():
    """True when running under vramsheet (the phase descriptor is set)."""
    return _phase_fd() >= 0


def _write(line):
    global _fd, _warned
    fd = _phase_fd()
    if fd < 0:
        return
    data = (line + "\n").encode("ascii", "replace")
    try:
        while data:
            n = os.write(fd, data)
            data = data[n:]
    except OSError as e:  # the descriptor did not reach this process
        if not _warned:
            sys.stderr.write("vramsheet_torch: cannot write to VRAMSHEET_PHASE_FD=%s (%s); "
                             "phases are not reported (pass the fd to child processes)\n"
                             % (os.environ.get("VRAMSHEET_PHASE_FD"), e))
            _warned = True
        _fd = -1


def _name(text):
    allowed = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:/+-")
    text = "".join(c if c in allowed else "_" for c in str(text))[:63]
    return text or "_"


def dims(**values):
    """Reports the dimensions really executed (length=, concurrency=, microbatch=, ...)."""
    parts = []
    for key, value in values.items():
        if value is None:
            continue
        parts.append("%s=%d" % (key.lower(), int(value)))
    if parts:
        _write("dims " + " ".join(parts))


def counter(name, nbytes, gpu=None, uuid=None):
    """Reports one counter of this phase, in bytes, for an NVML GPU index or UUID."""
    line = "counter %s %d" % (_name(name), int(nbytes))
    if uuid:
        line += " uuid=%s" % uuid
    elif gpu is not None:
        line += " gpu=%d" % int(gpu)
    _write(line)


def _torch():
    return sys.modules.get("torch")


def _nvml_target(torch, index):
    """(gpu, uuid) naming torch's device `index` the way NVML does."""
    try:
        uuid = getattr(torch.cuda.get_device_properties(index), "uuid", None)
    except Exception:
        uuid = None
    if uuid is not None:
        text = str(uuid)
        return None, text if text.startswith("GPU-") or text.startswith("MIG-") else "GPU-" + text
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible:
        entries = [v.strip() for v in visible.split(",") if v.strip()]
        if index < len(entries):
            entry = entries[index]
            if entry.isdigit():
                return int(entry), None
            return None, entry
    return index, None


def report_torch(reset=True):
    """Writes torch's peak allocated and reserved memory of every visible device."""
    torch = _torch()
    if not enabled() or torch is None:
        return
    try:
        if not torch.cuda.is_available():
            return
        count = torch.cuda.device_count()
    except Exception:
        return
    for index in range(count):
        gpu, uuid = _nvml_target(torch, index)
        counter("torch.max_memory_allocated", torch.cuda.max_memory_allocated(index), gpu, uuid)
        counter("torch.max_memory_reserved", torch.cuda.max_memory_reserved(index), gpu, uuid)
        if reset:
            torch.cuda.reset_peak_memory_stats(index)


def begin(name):
    """Starts a phase: peaks are reset so that the phase's own are reported."""
    torch = _torch()
    if enabled() and torch is not None:
        try:
            if torch.cuda.is_available():
                for index in range(torch.cuda.device_count()):
                    torch.cuda.reset_peak_memory_stats(index)
        except Exception:
            pass
    _write("phase " + _name(name))


def end():
    """Ends the current phase: reports torch's counters for it."""
    torch = _torch()
    if enabled() and torch is not None:
        try:
            torch.cuda.synchronize()
        except Exception:
            pass
    report_torch(reset=True)


class phase(object):
    """``with phase("backward"): ...`` — begin() on entry, end() on exit (also on error)."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        begin(self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        end()
        return False
