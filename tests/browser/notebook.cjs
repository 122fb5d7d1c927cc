// Drives Debian's Chromium through playwright-core against a running classic
// Jupyter Notebook server: opens each notebook, runs every cell with the
// vramsheet kernel from the menu (Cell > Run All), waits for every cell, checks
// what a reader would see (HTML tables, the SVG charts, the live gauge's bars
// while a measurement runs, no error) and saves a screenshot of each. Started
// by run_browser.py, which owns the server and the cleanup.
//
// Environment (all set by run_browser.py):
//   VS_PLAYWRIGHT     path of the npm-installed playwright-core module
//   VS_NOTEBOOKS      JSON list of {name, url, screenshot}: the notebooks in order
//   VS_USER_DATA_DIR  a fresh Chromium profile directory
//   VS_BUDGET_MS      overall bound for the browser part
// Exit status: 0 passed, 77 Chromium could not start (ctest skips), 1 failed.
'use strict';

const { chromium } = require(process.env.VS_PLAYWRIGHT);

const { SKIP, launch } = require('./chromium.cjs');
const started = Date.now();
const budget = Number(process.env.VS_BUDGET_MS || 45000);
const left = () => Math.max(1000, budget - (Date.now() - started));
const log = (...a) => console.log('[browser %ss]', ((Date.now() - started) / 1000).toFixed(1), ...a);

// What each notebook's cells must show: expect.cjs (shared with lab.cjs).
const { EXPECTS } = require('./expect.cjs');

async function main() {
  const context = await launch(chromium, process.env.VS_USER_DATA_DIR);
  if (!context)
    return SKIP;
  try {
    return await run(context);
  } finally {
    await context.close().catch(() => {});
  }
}

async function run(context) {
  const notebooks = JSON.parse(process.env.VS_NOTEBOOKS);
  let failed = 0;
  for (const nb of notebooks) {
    const page = await context.newPage();
    try {
      failed += await runNotebook(page, nb);
    } finally {
      await page.close().catch(() => {});
    }
  }
  return failed ? 1 : 0;
}

async function runNotebook(page, nb) {
  const EXPECT = EXPECTS[nb.name];
  if (!EXPECT) throw new Error('no expectations for ' + nb.name);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') log('console error:', m.text()); });
  page.setDefaultTimeout(15000);

  log('open', nb.url.replace(/token=[^&]*/, 'token=…'));
  await page.goto(nb.url, { waitUntil: 'load', timeout: left() });

  // The notebook is loaded and its kernel (the vramsheet one) has answered kernel_info.
  await page.waitForFunction(() => {
    const nb = window.Jupyter && window.Jupyter.notebook;
    return nb && nb._fully_loaded && nb.kernel && nb.kernel.is_connected() && nb.kernel.info_reply
      && nb.kernel.info_reply.status === 'ok';
  }, null, { timeout: Math.min(20000, left()), polling: 100 });
  const info = await page.evaluate(() => ({
    name: Jupyter.notebook.kernel.name,
    lang: Jupyter.notebook.kernel.info_reply.language_info.name,
    impl: Jupyter.notebook.kernel.info_reply.implementation,
    cells: Jupyter.notebook.get_cells().filter((c) => c.cell_type === 'code').length,
  }));
  log(nb.name, 'kernel ready:', JSON.stringify(info));
  if (info.name !== 'vramsheet' || info.lang !== 'vramsheet')
    throw new Error('the notebook did not start the vramsheet kernel: ' + JSON.stringify(info));
  if (info.cells !== EXPECT.length)
    throw new Error(`expected ${EXPECT.length} code cells, the notebook has ${info.cells}`);

  // The live gauge: watch the page while the cells run, and note, per code
  // cell, a gauge that shows its bars (the used part inside the bar) while it
  // still reads "measuring" and its cell has not finished.
  await page.evaluate(() => {
    window.vsGaugeSeen = {};
    const look = () => {
      document.querySelectorAll('.code_cell').forEach((cell, i) => {
        const g = cell.querySelector('.vs-gauge');
        if (!g || !/measuring/.test(g.textContent)) return;
        const bar = g.querySelector('.vs-gauge-bar'), used = g.querySelector('.vs-gauge-used');
        const running = /\*/.test(cell.querySelector('.input_prompt').textContent);
        if (bar && used && running && bar.getBoundingClientRect().width > 50
            && used.getBoundingClientRect().width > 0)
          window.vsGaugeSeen[i] = (window.vsGaugeSeen[i] || 0) + 1;
      });
    };
    new MutationObserver(look).observe(document.querySelector('#notebook'),
      { childList: true, subtree: true, characterData: true });
  });

  // What a person does: Cell > Run All, from the menu bar.
  await page.click('#celllink');
  await page.click('#run_all_cells');

  // A picture of the first gauge seen running, for the reviewer.
  const base = nb.screenshot.replace(/\.png$/, '');
  let runningShot = null;
  if (EXPECT.some((c) => c.gauge))
    runningShot = page.waitForFunction(() => [...document.querySelectorAll('.vs-gauge')]
      .find((g) => /measuring/.test(g.textContent) && g.querySelector('.vs-gauge-used')),
    null, { timeout: Math.min(20000, left()), polling: 20 })
      .then((h) => h.asElement().screenshot({ path: base + '-gauge-running.png' }))
      .then(() => log('screenshot:', base + '-gauge-running.png'))
      .catch((e) => log('no picture of a running gauge:', e.message.split('\n')[0]));

  // Every code cell finished: a number in its prompt (none left at "*"), the
  // numbers 1..N in order, and the kernel idle again. Bounded.
  await page.waitForFunction((n) => {
    const prompts = [...document.querySelectorAll('.code_cell .input_prompt')]
      .map((p) => p.textContent.replace(/\s+/g, ''));
    const want = Array.from({ length: n }, (_, i) => `In[${i + 1}]:`);
    return prompts.length === n && prompts.every((p, i) => p === want[i])
      && document.querySelector('#kernel_indicator_icon.kernel_idle_icon') !== null;
  }, EXPECT.length, { timeout: Math.min(30000, left()), polling: 100 }).catch(async (e) => {
    const prompts = await page.$$eval('.code_cell .input_prompt', (ps) => ps.map((p) => p.textContent.trim()));
    throw new Error('cells did not all finish: prompts ' + JSON.stringify(prompts) + ' (' + e.message.split('\n')[0] + ')');
  });
  log(nb.name, 'all cells finished');

  // The prompts are numbered by the shell replies and the kernel icon can still
  // read idle from an earlier cell, while the outputs come on IOPub: a fast
  // kernel's last outputs may land after the wait above. So wait, bounded, for
  // every cell to show what it must; the checks below say what is missing.
  await page.waitForFunction((expect) => {
    const els = [...document.querySelectorAll('.code_cell')];
    return els.length === expect.length && els.every((el, i) => {
      const out = el.querySelector('.output');
      const text = out ? out.textContent : '';
      return expect[i].text.every((t) => text.includes(t));
    });
  }, EXPECT, { timeout: Math.min(10000, left()), polling: 100 }).catch(() => {
    log('not every expected output arrived within 10 s');
  });

  // What the page shows, cell by cell.
  const cells = await page.$$eval('.code_cell', (els) => els.map((el) => ({
    outputs: el.querySelectorAll('.output_area').length,
    // the classic Notebook folds an output taller than its threshold into a scroll box
    folded: !!el.querySelector('.output_scroll'),
    errors: [...el.querySelectorAll('.output_error')].map((o) => o.textContent.trim()),
    stderr: [...el.querySelectorAll('.output_stderr')].map((o) => o.textContent.trim()),
    text: el.querySelector('.output') ? el.querySelector('.output').textContent : '',
    tables: el.querySelectorAll('.output_html table.vramsheet').length,
    tableRows: el.querySelectorAll('.output_html table.vramsheet tbody tr').length,
    escapedTable: /<table/.test(el.querySelector('.output') ? el.querySelector('.output').textContent : ''),
    svgs: [...el.querySelectorAll('.output_area svg')].map((s) => {
      const r = s.getBoundingClientRect();
      return { w: r.width, h: r.height, rects: s.querySelectorAll('rect').length };
    }),
    // a number with its unit never wraps: such a cell is one line high
    wrappedNumbers: [...el.querySelectorAll('table.vramsheet td')].filter((td) =>
      /white-space:\s*nowrap/.test(td.getAttribute('style') || '')
      && td.getClientRects().length && td.firstChild
      && (() => { const r = document.createRange(); r.selectNodeContents(td);
                  return r.getClientRects().length > 1; })()).map((td) => td.textContent).slice(0, 3),
  })));
  const gaugeSeen = await page.evaluate(() => window.vsGaugeSeen);
  const failures = [];
  let tables = 0, svgs = 0;
  cells.forEach((c, i) => {
    const want = EXPECT[i], where = `${nb.name} cell ${i + 1}`;
    if (c.outputs === 0) failures.push(`${where}: no output`);
    if (c.errors.length) failures.push(`${where}: error output: ${c.errors.join(' | ').slice(0, 400)}`);
    if (c.stderr.length && !want.stderr)
      failures.push(`${where}: stderr output: ${c.stderr.join(' | ').slice(0, 400)}`);
    if (c.escapedTable) failures.push(`${where}: HTML shown as text, not rendered`);
    for (const t of want.text)
      if (!c.text.includes(t)) failures.push(`${where}: "${t}" not shown`);
    if (want.table && !(c.tables > 0 && c.tableRows > 0))
      failures.push(`${where}: no rendered table.vramsheet with rows`);
    if (want.svg && !c.svgs.some((s) => s.w > 50 && s.h > 20 && s.rects > 0))
      failures.push(`${where}: no rendered SVG chart (${JSON.stringify(c.svgs)})`);
    if (want.gauge && !gaugeSeen[i])
      failures.push(`${where}: the gauge's bars were not seen while the measurement ran`);
    if (c.folded) failures.push(`${where}: the output is folded into a scroll box`);
    if (c.wrappedNumbers.length)
      failures.push(`${where}: numbers wrapped inside a cell: ${JSON.stringify(c.wrappedNumbers)}`);
    tables += c.tables;
    svgs += c.svgs.length;
  });
  if (pageErrors.length) failures.push(`${nb.name}: uncaught errors in the page: ` + pageErrors.join(' | '));
  log(`${nb.name} rendered: ${tables} table.vramsheet, ${svgs} svg, gauges seen running `
      + JSON.stringify(gaugeSeen));

  if (runningShot)
    await runningShot;
  await screenshot(page, nb.screenshot, nb.name.startsWith('01-'));
  log('screenshot:', nb.screenshot);
  // each chart on its own, also those inside a folded (scrolled) output
  const charts = await page.$$('.output_area svg');
  for (let k = 0; k < charts.length; k++) {
    await charts[k].scrollIntoViewIfNeeded().catch(() => {});
    await charts[k].screenshot({ path: `${base}-chart-${k + 1}.png` }).catch((e) =>
      failures.push(`${nb.name}: chart ${k + 1} cannot be pictured: ${e.message.split('\n')[0]}`));
  }
  if (charts.length)
    log(`${charts.length} chart picture(s): ${base}-chart-N.png`);

  if (failures.length) {
    for (const f of failures) console.log('FAIL:', f);
    return 1;
  }
  log(nb.name, 'PASS');
  return 0;
}

// The classic notebook scrolls inside #site, so a plain full-page shot would stop
// at the viewport: let the page grow to the notebook's height first (1280 wide).
async function screenshot(page, file, readme) {
  await page.addStyleTag({ content: `
    html, body { height: auto !important; overflow: visible !important; }
    #site { height: auto !important; overflow: visible !important; }
    #header { position: static !important; }
    #notification_area { visibility: hidden; }
    #MathJax_Message { display: none !important; }  /* "Loading [MathJax]..." is no output */
    .cell.selected, .cell.selected.jupyter-soft-selected { border-color: transparent !important;
      background: none !important; }
    .cell.selected::before { display: none !important; }` });
  await page.evaluate(() => {
    Jupyter.notebook.command_mode();
    window.dispatchEvent(new Event('resize'));
  });
  await page.mouse.move(0, 0);
  await page.screenshot({ path: file, fullPage: true, timeout: Math.min(15000, left()) });
  if (!readme)
    return;

  // The excerpt for the README: the page from its top to the end of the formats
  // cell (the card, the envelope with its chart, the formats table), cut to the
  // notebook's own width.
  const box = await page.evaluate(() => {
    const nb = document.querySelector('#notebook-container').getBoundingClientRect();
    const cells = document.querySelectorAll('.code_cell');
    const end = cells[2].getBoundingClientRect();
    return { x: Math.max(0, nb.left - 12), y: 0, width: Math.min(nb.width + 24, document.documentElement.clientWidth),
             height: end.bottom + window.scrollY + 16 };
  });
  await page.screenshot({ path: file.replace(/\.png$/, '') + '-readme.png', clip: box,
                          fullPage: true, timeout: Math.min(15000, left()) });
}

const timer = setTimeout(() => {
  console.log('FAIL: the browser part ran past its bound of %d ms', budget);
  process.exit(1);
}, budget + 5000);
main().then((code) => { clearTimeout(timer); process.exitCode = code; },
            (e) => { clearTimeout(timer); console.log('FAIL:', e && e.stack || e); process.exitCode = 1; });
