"""The protocol tests once more with the kernel under valgrind memcheck.

Runs test_transport and test_kernel_suite with the build tree's
"vramsheet-valgrind" kernelspec (kernel/build.cmake), then requires every
kernel process's log to end with zero errors (definite leaks count as errors).
Exit status 0 only when the tests pass and every log is clean.
"""
import glob
import os
import re
import shutil
import sys
import unittest

LOG_DIR = os.environ["VS_VALGRIND_LOG_DIR"]


def main():
    shutil.rmtree(LOG_DIR, ignore_errors=True)
    os.makedirs(LOG_DIR)
    os.environ["VS_KERNEL_NAME"] = "vramsheet-valgrind"
    os.environ.pop("VS_KERNEL_JUPYTER_PATH", None)  # the build tree's specs
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    suite = unittest.defaultTestLoader.loadTestsFromNames(["test_transport", "test_kernel_suite"])
    result = unittest.TextTestRunner(verbosity=2).run(suite)

    logs = sorted(glob.glob(os.path.join(LOG_DIR, "kernel.*.log")))
    bad = []
    for path in logs:
        with open(path, errors="replace") as f:
            text = f.read()
        m = re.search(r"ERROR SUMMARY: (\d+) errors", text)
        if not m:
            bad.append((path, "no ERROR SUMMARY (the kernel was killed?)", text[-3000:]))
        elif m.group(1) != "0":
            bad.append((path, m.group(0), text[-6000:]))
    print("valgrind: %d kernel processes, %d with errors" % (len(logs), len(bad)))
    for path, why, tail in bad:
        print("==== %s: %s\n%s" % (path, why, tail))
    ok = result.wasSuccessful() and logs and not bad
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
