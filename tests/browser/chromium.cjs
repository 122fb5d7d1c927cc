// Debian's Chromium, started the one way both browser drivers use
// (notebook.cjs: classic Notebook 6; lab.cjs: JupyterLab 4 and Notebook 7):
// headless, a fresh profile, no network of its own, UTC, a fixed 1280x900
// viewport so that the screenshots compare across runs.
'use strict';

const SKIP = 77; // ctest's SKIP_RETURN_CODE (tests/browser/build.cmake)
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
              '--disable-background-networking', '--disable-component-update', '--disable-sync',
              '--disable-dev-shm-usage'];

// The persistent context in userDataDir, or null after printing why Chromium
// could not start (the caller then exits with SKIP).
async function launch(chromium, userDataDir) {
  try {
    return await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 20000,
      viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1,
      env: { ...process.env, TZ: 'UTC' },
    });
  } catch (e) {
    console.log('SKIP: Chromium (%s) cannot start: %s', CHROMIUM, String(e.message).split('\n')[0]);
    return null;
  }
}

module.exports = { SKIP, launch };
