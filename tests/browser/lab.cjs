// The same notebooks in the frontends of 2026: JupyterLab 4 and Notebook 7
// (from PyPI, in a virtual environment in the build tree), through Debian's
// Chromium driven by playwright-core. Per notebook: Run All, every cell's
// outputs (tables, charts, no error), the live gauge's bars while a
// measurement runs (notebook 04, fake NVML), a screenshot. Then, in a new
// cell: Tab completes `conv` to `convert`, Shift-Tab shows its help, and a
// long `measure` is interrupted from the Kernel menu's command. Started by
// run_browser.py --frontend lab|nb7, which owns the server and the cleanup.
//
// Environment: VS_PLAYWRIGHT, VS_NOTEBOOKS (JSON list of {name, url,
// screenshot}), VS_USER_DATA_DIR, VS_BUDGET_MS, VS_FRONTEND ("lab" or "nb7").
// Exit status: 0 passed, 77 Chromium could not start (ctest skips), 1 failed.
'use strict';

const { chromium } = require(process.env.VS_PLAYWRIGHT);
const { EXPECTS } = require('./expect.cjs');

const { SKIP, launch } = require('./chromium.cjs');
const FRONTEND = process.env.VS_FRONTEND || 'lab';
const started = Date.now();
const budget = Number(process.env.VS_BUDGET_MS || 90000);
const left = () => Math.max(1000, budget - (Date.now() - started));
const log = (...a) => console.log(`[${FRONTEND} %ss]`, ((Date.now() - started) / 1000).toFixed(1), ...a);

async function main() {
  const context = await launch(chromium, process.env.VS_USER_DATA_DIR);
  if (!context)
    return SKIP;
  try {
    const notebooks = JSON.parse(process.env.VS_NOTEBOOKS);
    let failed = 0;
    for (const nb of notebooks) {
      const page = await context.newPage();
      try {
        failed += await runNotebook(page, nb, nb === notebooks[notebooks.length - 1]);
      } finally {
        await page.close().catch(() => {});
      }
    }
    return failed ? 1 : 0;
  } finally {
    await context.close().catch(() => {});
  }
}

// The notebook panel in front, and its kernel.
const KERNEL_IDLE = (name) => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!(k && k.status === 'idle' && w.content && w.content.widgets && w.context
            && w.context.path.endsWith(name));
};

async function runNotebook(page, nb, interactive) {
  const EXPECT = EXPECTS[nb.name];
  const failures = [];
  const pageErrors = [];
  page.on('pageerror', (e) => {
    const stack = String(e.stack || e).split('\n').slice(0, 4).join(' <- ');
    // Notebook 7.6's keyboard-shortcut settings plugin reads the schema of a
    // plugin it has not loaded when another plugin's settings change (its own
    // bundle, notebook_core.*.js; the page goes on): logged, not counted
    if (FRONTEND === 'nb7' && /reading 'schema'/.test(stack) && /static\/notebook\/notebook_core\./.test(stack)) {
      log('Notebook 7\'s own error, not counted:', stack.slice(0, 160));
      return;
    }
    pageErrors.push(stack);
  });
  page.setDefaultTimeout(15000);
  log('open', nb.url.replace(/token=[^&]*/, 'token=…'));
  await page.goto(nb.url, { waitUntil: 'load', timeout: left() });
  await page.waitForFunction(KERNEL_IDLE, nb.name, { timeout: Math.min(30000, left()), polling: 100 });
  const info = await page.evaluate(() => {
    const w = window.jupyterapp.shell.currentWidget;
    return { kernel: w.sessionContext.session.kernel.name,
             cells: w.content.widgets.filter((c) => c.model.type === 'code').length };
  });
  log(nb.name, 'kernel ready:', JSON.stringify(info));
  if (info.kernel !== 'vramsheet')
    throw new Error('the notebook did not start the vramsheet kernel: ' + JSON.stringify(info));
  if (info.cells !== EXPECT.length)
    throw new Error(`expected ${EXPECT.length} code cells, the notebook has ${info.cells}`);

  // The gauge, watched while the cells run (as in notebook.cjs).
  await page.evaluate(() => {
    window.vsGaugeSeen = {};
    const look = () => {
      document.querySelectorAll('.jp-Notebook .jp-CodeCell').forEach((cell, i) => {
        const g = cell.querySelector('.vs-gauge');
        if (!g || !/measuring/.test(g.textContent)) return;
        const bar = g.querySelector('.vs-gauge-bar'), used = g.querySelector('.vs-gauge-used');
        const running = /\*/.test(cell.querySelector('.jp-InputPrompt').textContent);
        if (bar && used && running && bar.getBoundingClientRect().width > 50)
          window.vsGaugeSeen[i] = (window.vsGaugeSeen[i] || 0) + 1;
      });
    };
    new MutationObserver(look).observe(document.querySelector('.jp-Notebook'),
      { childList: true, subtree: true, characterData: true });
  });

  // Run > Run All Cells (the menu's command; its promise is not awaited here).
  await page.evaluate(() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); });
  await page.waitForFunction((n) => {
    const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
      .map((p) => p.textContent.replace(/\s+/g, ''));
    return prompts.length === n && prompts.every((p, i) => p === `[${i + 1}]:`);
  }, EXPECT.length, { timeout: Math.min(40000, left()), polling: 100 }).catch(async (e) => {
    const prompts = await page.$$eval('.jp-CodeCell .jp-InputPrompt', (ps) => ps.map((p) => p.textContent.trim()));
    throw new Error('cells did not all finish: prompts ' + JSON.stringify(prompts) + ' (' + e.message.split('\n')[0] + ')');
  });
  await page.waitForFunction(KERNEL_IDLE, nb.name, { timeout: Math.min(10000, left()), polling: 100 });
  await page.waitForFunction((expect) => {
    const els = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')];
    return els.every((el, i) => expect[i].text.every((t) => {
      const o = el.querySelector('.jp-Cell-outputWrapper');
      return o && o.textContent.includes(t);
    }));
  }, EXPECT, { timeout: Math.min(10000, left()), polling: 100 }).catch(() => log('not every expected output arrived within 10 s'));
  log(nb.name, 'all cells finished');

  const cells = await page.$$eval('.jp-Notebook .jp-CodeCell', (els) => els.map((el) => {
    const out = el.querySelector('.jp-Cell-outputWrapper');
    return {
      outputs: el.querySelectorAll('.jp-OutputArea-output').length,
      // an output folded into a scroll box (Notebook 7 scrolls long outputs)
      folded: el.classList.contains('jp-mod-outputsScrolled')
        || !!el.querySelector('.jp-mod-outputsScrolled'),
      errors: [...el.querySelectorAll('[data-mime-type="application/vnd.jupyter.error"]')].map((o) => o.textContent.trim()),
      stderr: [...el.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]')].map((o) => o.textContent.trim()),
      text: out ? out.textContent : '',
      tables: el.querySelectorAll('.jp-RenderedHTMLCommon table.vramsheet').length,
      tableRows: el.querySelectorAll('.jp-RenderedHTMLCommon table.vramsheet tbody tr').length,
      svgs: [...el.querySelectorAll('.jp-OutputArea-output svg')].map((s) => {
        const r = s.getBoundingClientRect();
        return { w: r.width, h: r.height, rects: s.querySelectorAll('rect').length };
      }),
    };
  }));
  const gaugeSeen = await page.evaluate(() => window.vsGaugeSeen);
  cells.forEach((c, i) => {
    const want = EXPECT[i], where = `${FRONTEND} ${nb.name} cell ${i + 1}`;
    if (c.outputs === 0) failures.push(`${where}: no output`);
    if (c.errors.length) failures.push(`${where}: error output: ${c.errors.join(' | ').slice(0, 400)}`);
    if (c.stderr.length && !want.stderr)
      failures.push(`${where}: stderr output: ${c.stderr.join(' | ').slice(0, 400)}`);
    for (const t of want.text)
      if (!c.text.includes(t)) failures.push(`${where}: "${t}" not shown`);
    if (want.table && !(c.tables > 0 && c.tableRows > 0))
      failures.push(`${where}: no rendered table.vramsheet with rows`);
    if (want.svg && !c.svgs.some((s) => s.w > 50 && s.h > 20 && s.rects > 0))
      failures.push(`${where}: no rendered SVG chart (${JSON.stringify(c.svgs)})`);
    if (want.gauge && !gaugeSeen[i])
      failures.push(`${where}: the gauge's bars were not seen while the measurement ran`);
    if (c.folded) failures.push(`${where}: the output is folded into a scroll box`);
  });
  log(`${nb.name}: ${cells.reduce((n, c) => n + c.tables, 0)} table.vramsheet, `
      + `${cells.reduce((n, c) => n + c.svgs.length, 0)} svg, gauges seen running ${JSON.stringify(gaugeSeen)}`);

  // The whole notebook in one picture: a window as tall as the notebook.
  const height = await page.evaluate(() => {
    const inner = document.querySelector('.jp-Notebook .jp-WindowedPanel-inner')
      || document.querySelector('.jp-Notebook');
    return Math.ceil(inner.scrollHeight) + 300;
  });
  await page.setViewportSize({ width: 1280, height: Math.min(Math.max(900, height), 16000) });
  await page.waitForTimeout(500);
  await page.screenshot({ path: nb.screenshot, timeout: Math.min(15000, left()) });
  await page.setViewportSize({ width: 1280, height: 900 });
  log('screenshot:', nb.screenshot);

  if (interactive)
    await typeLikeAPerson(page, failures, nb.screenshot.replace(/\.png$/, ''));
  if (pageErrors.length) failures.push(`${FRONTEND} ${nb.name}: uncaught errors in the page: ` + pageErrors.join(' | '));
  if (failures.length) {
    for (const f of failures) console.log('FAIL:', f);
    return 1;
  }
  log(nb.name, 'PASS');
  return 0;
}

// A new code cell at the end: Tab, Shift-Tab, then a long measurement
// interrupted with Kernel > Interrupt Kernel.
async function typeLikeAPerson(page, failures, base) {
  const where = `${FRONTEND} keyboard`;
  await page.evaluate(async () => {
    const c = window.jupyterapp.commands, nb = window.jupyterapp.shell.currentWidget.content;
    await c.execute('notebook:enter-command-mode');
    nb.activeCellIndex = nb.widgets.length - 1;
    await c.execute('notebook:insert-cell-below');
    await c.execute('notebook:change-cell-to-code');
    await c.execute('notebook:enter-edit-mode');
  });
  await page.waitForTimeout(300);
  const source = () => page.evaluate(() =>
    window.jupyterapp.shell.currentWidget.content.activeCell.model.sharedModel.getSource());
  await page.keyboard.type('conv');
  await page.keyboard.press('Tab');
  const offered = await page.waitForSelector('.jp-Completer-item[data-value="convert"]', { timeout: 5000 })
    .then(() => true, () => false);
  if (offered)
    await page.keyboard.press('Enter');
  await page.waitForTimeout(300);
  const completed = await source();
  if (completed !== 'convert')
    failures.push(`${where}: Tab on "conv" gave ${JSON.stringify(completed)} (completer offered convert: ${offered})`);
  else
    log('Tab: conv -> convert');
  await page.keyboard.press('Shift+Tab');
  const tip = await page.waitForSelector('.jp-Tooltip', { timeout: 5000 })
    .then(() => page.textContent('.jp-Tooltip'), () => '');
  if (!/convert QUANTITY UNIT/.test(tip))
    failures.push(`${where}: Shift-Tab on "convert" showed no help: ${JSON.stringify(tip.slice(0, 200))}`);
  else
    log('Shift-Tab: help shown');
  await page.screenshot({ path: base + '-tooltip.png' });
  await page.keyboard.press('Escape');

  // interrupt: a measurement that would sleep 30 s
  await page.evaluate(() => {
    window.jupyterapp.shell.currentWidget.content.activeCell.model.sharedModel.setSource('measure -- sleep 30');
    window.jupyterapp.commands.execute('notebook:run-cell');
  });
  await page.waitForFunction(() => [...document.querySelectorAll('.vs-gauge')].some((g) => /measuring/.test(g.textContent)),
    null, { timeout: 10000, polling: 50 }).catch(() => failures.push(`${where}: the long measurement showed no running gauge`));
  const t = Date.now();
  await page.evaluate(() => window.jupyterapp.commands.execute('notebook:interrupt-kernel'));
  const stopped = await page.waitForFunction(() => {
    const cell = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell')].pop();
    return /KeyboardInterrupt/.test(cell.textContent) && /interrupted/.test(cell.textContent)
      && /\[\d+\]/.test(cell.querySelector('.jp-InputPrompt').textContent);
  }, null, { timeout: 10000, polling: 50 }).then(() => true, () => false);
  if (!stopped)
    failures.push(`${where}: the interrupt did not end the measurement within 10 s`);
  else
    log(`interrupt: the measurement ended in ${Date.now() - t} ms`);
}

const timer = setTimeout(() => {
  console.log('FAIL: the browser part ran past its bound of %d ms', budget);
  process.exit(1);
}, budget + 5000);
main().then((code) => { clearTimeout(timer); process.exitCode = code; },
            (e) => { clearTimeout(timer); console.log('FAIL:', e && e.stack || e); process.exitCode = 1; });
