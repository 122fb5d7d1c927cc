"""Notebooks in a real browser: Debian's classic Jupyter Notebook server and
Debian's Chromium, driven by playwright-core from npm (notebook.cjs). Every
notebook, 00 to 06, runs against the tests' fake NVML (one scripted H200, as
in tests/notebooks); the staged measurement's (04) live gauge must show its
bars while each run goes.

Starts `jupyter-notebook` on 127.0.0.1 (a free port, a random token, no
browser) with the build tree's kernelspec (JUPYTER_PATH), a temporary copy of
notebooks/ as its notebook directory, temporary Jupyter config/data/runtime
directories and a temporary records repository (VRAMSHEET_RECORDS); installs
playwright-core with `npm ci` into VS_BUILD_DIR/browser (once: again only when
the lock file changes); runs notebook.cjs; and stops the server, its kernels and
Chromium whatever happens.

Exit status: 0 passed, 77 skipped (Chromium cannot start, or npm cannot install
playwright-core for want of a network), anything else failed.

With --setup, only installs playwright-core and the JupyterLab / Notebook 7
environment (ctest's browser.setup, a fixture of the browser tests, with its own
timeout): the tests' 200 s budget then starts after the installs.

With --frontend lab or --frontend nb7, the same notebooks run in JupyterLab 4 or
Notebook 7 instead (lab.cjs: also Tab, Shift-Tab and an interrupt), both from PyPI
in a virtual environment the test makes once in VS_BUILD_DIR/lab-venv (again only
when REQUIREMENTS change; skipped, 77, when pip has no network); screenshots
VS_BUILD_DIR/browser/lab-NN.png or nb7-NN.png.

Environment: VS_SOURCE_DIR, VS_BUILD_DIR, JUPYTER_PATH, VS_FAKE_NVML (ctest sets
them); VS_SCREENSHOT overrides the seed notebook's screenshot path (default
VS_BUILD_DIR/browser/seed-notebook.png); the others are
VS_BUILD_DIR/browser/notebook-NN.png. No output may be folded into a scroll box.
"""
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

SKIP = 77
NOTEBOOKS = ["00-first-steps.ipynb", "01-seed-7b-inference.ipynb",
             "02-long-context-inference.ipynb", "03-qlora-finetune.ipynb",
             "04-measure-by-stages.ipynb", "05-reproduce-a-decision.ipynb",
             "06-engines-and-fit.ipynb"]
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("VS_SOURCE_DIR", os.path.join(HERE, "..", ".."))
BUILD = os.environ.get("VS_BUILD_DIR")
JUPYTER_NOTEBOOK = "/usr/bin/jupyter-notebook"
CHROMIUM = "/usr/bin/chromium"
BUDGET_S = 200         # the whole test, npm ci and pip install excepted
NPM_BOUND_S = 120      # npm ci, the first time only
NETWORK_ERRORS = re.compile(r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|"
                            r"EHOSTUNREACH|network|proxy|getaddrinfo|socket hang up|request to .* failed",
                            re.IGNORECASE)
T0 = time.monotonic()
FRONTEND = sys.argv[sys.argv.index("--frontend") + 1] if "--frontend" in sys.argv else "classic"
REQUIREMENTS = ["jupyterlab>=4,<5", "notebook>=7,<8"]
PIP_BOUND_S = 300      # pip install, the first time only


def log(*a):
    print("[run_browser %5.1fs]" % (time.monotonic() - T0), *a, flush=True)


def skip(why):
    print("SKIP: " + why, flush=True)
    sys.exit(SKIP)


def fail(why):
    print("FAIL: " + why, flush=True)
    sys.exit(1)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def install_playwright(folder):
    """npm ci of tests/browser/package*.json into folder (the build tree), unless
    the same lock file is already installed there. Returns the module path."""
    npm = shutil.which("npm")
    node = shutil.which("node")
    if not npm or not node:
        skip("node/npm are not installed, so playwright-core cannot be installed")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(HERE, "package-lock.json"), "rb") as f:
        lock = f.read()
    module = os.path.join(folder, "node_modules", "playwright-core")
    stamp = os.path.join(folder, "node_modules", ".vramsheet-lock")
    try:
        with open(stamp, "rb") as f:
            if f.read() == lock and os.path.exists(os.path.join(module, "package.json")):
                return module
    except OSError:
        pass
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(os.path.join(HERE, name), os.path.join(folder, name))
    log("npm ci (playwright-core) in", folder)
    env = dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
    try:
        r = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=folder, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=NPM_BOUND_S)
    except subprocess.TimeoutExpired:
        skip("npm ci did not finish in %d s (no network?)" % NPM_BOUND_S)
    if r.returncode != 0:
        tail = r.stdout[-1500:]
        if NETWORK_ERRORS.search(r.stdout):
            skip("npm cannot install playwright-core (no network?):\n" + tail)
        fail("npm ci failed:\n" + tail)
    if not os.path.exists(os.path.join(module, "package.json")):
        fail("npm ci left no %s" % module)
    with open(stamp, "wb") as f:
        f.write(lock)
    return module


def install_lab(folder):
    """A virtual environment with JupyterLab 4 and Notebook 7 from PyPI, made once
    (again only when REQUIREMENTS change). Returns its bin folder."""
    stamp = os.path.join(folder, ".vramsheet-requirements")
    bin_dir = os.path.join(folder, "bin")
    want = "\n".join(REQUIREMENTS)
    try:
        with open(stamp) as f:
            if f.read() == want and os.access(os.path.join(bin_dir, "jupyter-lab"), os.X_OK):
                return bin_dir
    except OSError:
        pass
    # Debian's python3 makes environments only with python3-venv installed; a
    # python3 earlier on PATH (pyenv, ...) may have ensurepip where it has not
    python = None
    for candidate in ("/usr/bin/python3", shutil.which("python3")):
        if candidate and subprocess.run([candidate, "-c", "import ensurepip, venv"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
            python = candidate
            break
    if not python:
        fail("no python3 here can make a virtual environment (apt-get install python3-venv)")
    log("%s -m venv + pip install %s in %s" % (python, " ".join(REQUIREMENTS), folder))
    shutil.rmtree(folder, ignore_errors=True)
    r = subprocess.run([python, "-m", "venv", folder], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        fail("%s -m venv failed:\n%s" % (python, r.stdout[-1500:]))
    try:
        r = subprocess.run([os.path.join(bin_dir, "pip"), "install", "--disable-pip-version-check",
                            "-q"] + REQUIREMENTS, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=PIP_BOUND_S)
    except subprocess.TimeoutExpired:
        skip("pip install did not finish in %d s (no network?)" % PIP_BOUND_S)
    if r.returncode != 0:
        if NETWORK_ERRORS.search(r.stdout) or "No matching distribution" in r.stdout:
            skip("pip cannot install JupyterLab and Notebook 7 (no network?):\n" + r.stdout[-1500:])
        fail("pip install failed:\n" + r.stdout[-1500:])
    # no news or update prompts over the pages
    settings = os.path.join(folder, "share", "jupyter", "lab", "settings")
    os.makedirs(settings, exist_ok=True)
    with open(os.path.join(settings, "overrides.json"), "w") as f:
        json.dump({"@jupyterlab/apputils-extension:notification":
                   {"fetchNews": "false", "checkForUpdates": False}}, f)
    with open(stamp, "w") as f:
        f.write(want)
    return bin_dir


def server_args(port, nbdir, token, lab_bin):
    """The command line of the server for FRONTEND."""
    culling = [  # should this script die unseen (SIGKILL), the server culls
        # its idle kernel and then shuts itself down
        "--MappingKernelManager.cull_idle_timeout=%d" % (BUDGET_S * 2),
        "--MappingKernelManager.cull_interval=30"]
    if FRONTEND == "classic":
        args = [JUPYTER_NOTEBOOK, "--no-browser", "--ip=127.0.0.1", "--port=%d" % port,
                "--port-retries=0", "--notebook-dir=" + nbdir,
                "--NotebookApp.token=" + token, "--NotebookApp.password=",
                "--NotebookApp.open_browser=False", "--NotebookApp.quit_button=False",
                "--NotebookApp.shutdown_no_activity_timeout=%d" % (BUDGET_S * 3)] + culling
    else:
        app = "LabApp" if FRONTEND == "lab" else "JupyterNotebookApp"
        exe = os.path.join(lab_bin, "jupyter-lab" if FRONTEND == "lab" else "jupyter-notebook")
        args = [exe, "--no-browser", "--ip=127.0.0.1", "--port=%d" % port, "--port-retries=0",
                "--ServerApp.root_dir=" + nbdir, "--IdentityProvider.token=" + token,
                "--ServerApp.password=", "--%s.expose_app_in_browser=True" % app,
                "--ServerApp.shutdown_no_activity_timeout=%d" % (BUDGET_S * 3)] + culling
    if os.geteuid() == 0:
        args.append("--allow-root")
    return args


def notebook_url(port, name, token):
    if FRONTEND == "lab":
        # a workspace of its own, reset: no notebook restored from the last page
        return "http://127.0.0.1:%d/lab/workspaces/vs-%s/tree/%s?reset&token=%s" % (
            port, name[:2], name, token)
    return "http://127.0.0.1:%d/notebooks/%s?token=%s" % (port, name, token)


def pids_mentioning(marker):
    """Processes whose command line names marker (our temporary folder)."""
    found = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(d))
        except OSError:
            pass
    return found


def stop_group(proc, grace=5.0):
    """SIGTERM the process group proc leads, then SIGKILL what is left."""
    if proc is None or proc.poll() is not None and not _group_alive(proc.pid):
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 2.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + wait
        while time.monotonic() < end:
            if proc.poll() is not None and not _group_alive(proc.pid):
                return
            time.sleep(0.05)


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def kill_leftovers(marker):
    """Kernels (their connection files are in our runtime dir) and Chromium (its
    profile is in our temporary folder) that outlived their parents."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = pids_mentioning(marker)
        if not pids:
            return
        log("stopping leftover processes", pids, signal.Signals(sig).name)
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        end = time.monotonic() + 3
        while time.monotonic() < end and any(os.path.exists("/proc/%d" % p) for p in pids_mentioning(marker)):
            time.sleep(0.05)


def wait_for_server(proc, url, logfile, bound):
    end = time.monotonic() + bound
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    json.load(r)
                    return True
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    return False


def tail(path, n=4000):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-n:]
    except OSError:
        return "(no log)"


def on_signal(signum, _frame):
    # ctest's timeout or a Ctrl-C: leave through main()'s cleanup
    fail("stopped by signal %d" % signum)


def setup():
    """--setup (ctest's browser.setup, a fixture the browser tests require):
    playwright-core and the JupyterLab / Notebook 7 environment installed in
    their own step, so that the tests' time budget is the browser's alone."""
    if not BUILD:
        fail("VS_BUILD_DIR is not set (run through ctest)")
    install_playwright(os.path.join(BUILD, "browser"))
    install_lab(os.path.join(BUILD, "lab-venv"))
    log("setup done")


def main():
    global T0
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if "--setup" in sys.argv:
        setup()
        return
    if not BUILD:
        fail("VS_BUILD_DIR is not set (run through ctest)")
    if not os.environ.get("JUPYTER_PATH"):
        fail("JUPYTER_PATH is not set (the build tree's kernelspec)")
    spec = os.path.join(os.environ["JUPYTER_PATH"].split(os.pathsep)[0], "kernels", "vramsheet", "kernel.json")
    if not os.path.exists(spec):
        fail("no vramsheet kernelspec at %s" % spec)
    if not os.access(CHROMIUM, os.X_OK):
        skip("%s is not installed" % CHROMIUM)
    if FRONTEND == "classic" and not os.access(JUPYTER_NOTEBOOK, os.X_OK):
        fail("%s is not installed (apt-get install jupyter-notebook)" % JUPYTER_NOTEBOOK)

    fake_nvml = os.environ.get("VS_FAKE_NVML", "")
    if not os.path.exists(fake_nvml):
        fail("VS_FAKE_NVML (the tests' fake NVML, for notebook 04) is not built: %r" % fake_nvml)

    if FRONTEND not in ("classic", "lab", "nb7"):
        fail("--frontend is classic, lab or nb7, not %r" % FRONTEND)
    browser_dir = os.path.join(BUILD, "browser")
    module = install_playwright(browser_dir)
    lab_bin = install_lab(os.path.join(BUILD, "lab-venv")) if FRONTEND != "classic" else None
    # the budget is the browser's: installing (done by browser.setup, or here
    # when the test is run alone) is not counted in it
    T0 = time.monotonic()
    if FRONTEND == "classic":
        screenshots = [os.environ.get("VS_SCREENSHOT") or os.path.join(browser_dir, "seed-notebook.png")
                       if n.startswith("01-") else os.path.join(browser_dir, "notebook-%s.png" % n[:2])
                       for n in NOTEBOOKS]
    else:
        screenshots = [os.path.join(browser_dir, "%s-%s.png" % (FRONTEND, n[:2])) for n in NOTEBOOKS]
    for shot in screenshots:
        if os.path.exists(shot):
            os.unlink(shot)

    tmp = tempfile.mkdtemp(prefix="vs-browser-")
    server = node = None
    try:
        nbdir = os.path.join(tmp, "notebooks")
        shutil.copytree(os.path.join(SOURCE, "notebooks"), nbdir,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
        for d in ("config", "data", "runtime", "profile", "home"):
            os.makedirs(os.path.join(tmp, d))
        token = secrets.token_hex(16)
        env = dict(os.environ,
                   JUPYTER_CONFIG_DIR=os.path.join(tmp, "config"),
                   JUPYTER_DATA_DIR=os.path.join(tmp, "data"),
                   JUPYTER_RUNTIME_DIR=os.path.join(tmp, "runtime"),
                   IPYTHONDIR=os.path.join(tmp, "home", ".ipython"),
                   VRAMSHEET_RECORDS=os.path.join(tmp, "records"),
                   # the kernels measure against the fake NVML: one scripted H200
                   # whose used memory notebook 04's stand-in workload writes
                   VRAMSHEET_NVML_LIBRARY=fake_nvml,
                   FAKE_NVML_SCRIPT=os.path.join(tmp, "fake-nvml-script"),
                   FAKE_NVML_STATE=os.path.join(tmp, "fake-nvml-state"),
                   PYTHONDONTWRITEBYTECODE="1", PYDEVD_DISABLE_FILE_VALIDATION="1")
        with open(env["FAKE_NVML_SCRIPT"], "w") as f:
            f.write('gpu 0 name="FAKE NVIDIA H200 (scripted by tests/fake_nvml)" '
                    'total=150754820096 used=1000000\n')
        env.pop("VRAMSHEET_KERNEL_TEST", None)
        server_log = os.path.join(tmp, "notebook-server.log")
        for attempt in range(3):
            port = free_port()
            args = server_args(port, nbdir, token, lab_bin)
            log("%s on 127.0.0.1:%d, notebooks in %s" % (os.path.basename(args[0]), port, nbdir))
            with open(server_log, "ab") as lf:
                server = subprocess.Popen(args, cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                                          stdout=lf, stderr=subprocess.STDOUT, start_new_session=True)
            status = "http://127.0.0.1:%d/api/status?token=%s" % (port, token)
            if wait_for_server(server, status, server_log, 20):
                break
            if server.poll() is None:
                fail("the notebook server did not answer in 20 s:\n" + tail(server_log))
            if "already in use" not in tail(server_log):
                fail("the notebook server exited (%s):\n%s" % (server.returncode, tail(server_log)))
            server = None
        else:
            fail("no free port for the notebook server:\n" + tail(server_log))
        log("server ready")

        notebooks = [{"name": name, "screenshot": shot, "url": notebook_url(port, name, token)}
                     for name, shot in zip(NOTEBOOKS, screenshots)]
        left = BUDGET_S - (time.monotonic() - T0)
        node_env = dict(os.environ, VS_PLAYWRIGHT=module, VS_NOTEBOOKS=json.dumps(notebooks),
                        VS_USER_DATA_DIR=os.path.join(tmp, "profile"), HOME=os.path.join(tmp, "home"),
                        VS_BUDGET_MS=str(int(max(10, left - 5) * 1000)),
                        XDG_CONFIG_HOME=os.path.join(tmp, "home", ".config"),
                        XDG_CACHE_HOME=os.path.join(tmp, "home", ".cache"))
        node_env["VS_FRONTEND"] = FRONTEND
        driver = "notebook.cjs" if FRONTEND == "classic" else "lab.cjs"
        node = subprocess.Popen([shutil.which("node"), os.path.join(HERE, driver)],
                                env=node_env, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = node.wait(timeout=max(10, left))
        except subprocess.TimeoutExpired:
            fail("the browser part ran past %d s" % left)
        if rc == SKIP:
            sys.exit(SKIP)
        if rc != 0:
            print("---- notebook server log (tail) ----\n" + tail(server_log, 3000), flush=True)
            fail("the browser check failed (exit %d)" % rc)
        for shot in screenshots:
            if not os.path.exists(shot):
                fail("no screenshot at %s" % shot)
        log("PASS; screenshots", " ".join(screenshots))
    finally:
        stop_group(node, grace=2)
        stop_group(server)
        kill_leftovers(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
        log("cleaned up")


if __name__ == "__main__":
    main()
