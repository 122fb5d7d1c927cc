// What a reader must see in each notebook the browser tests run, cell by
// cell, whatever the frontend (notebook.cjs: classic Notebook 6; lab.cjs:
// JupyterLab 4 and Notebook 7).
'use strict';

// Per notebook, the code cells in order with what each must show. gauge: the
// cell's live gauge must show its bars while the measurement still runs.
// stderr: the cell's command writes to stderr on purpose.
const EXPECTS = {
  '01-seed-7b-inference.ipynb': [
    { text: ['13.04 GiB', 'example/dense-7b'], table: true },               // the card, weights only
    { text: ['19.04 GiB', 'conservative'], table: true, svg: true },        // reserve, envelope: chart
    { text: ['26.08 GiB', '3.26 GiB', '32.08 GiB', '9.26 GiB'], table: true },  // formats
    { text: ['22.35 GiB'], table: true },                                   // convert 24GB GiB
    { text: ['RTX 4090', 'RTX 6000 Ada', 'to-confirm', '(device-reported, catalogue)'], table: true,
      svg: true },                                                          // candidates
    { text: ['decision recorded', 'Committed sheet'] },                     // invalidate, decide, commit
    { text: ['first estimate, before measuring'], table: true },            // history
  ],
  '02-long-context-inference.ipynb': [
    { text: ['64.00 GiB', 'kv_cache'], table: true },                       // card, KV cache in bf16
    { text: ['48.96 GiB', 'cuda_context'], table: true, svg: true },        // fp8 cache, envelope
    { text: ['41.48 GiB', 'not a guaranteed peak'], table: true },          // formats
    { text: ['H100 SXM', 'L40S', 'exclude', '79.65 GiB [1]'], table: true, svg: true },  // candidates
  ],
  '04-measure-by-stages.ipynb': [
    { text: ['limit: length=4096 concurrency=8'] },                         // card and stages
    { text: ['measured run m1', 'short stage done', 'finished m1', '(+5 more lines)'], table: true,
      gauge: true },
    { text: ['measured run m2', 'usual stage done', 'finished m2'], table: true, gauge: true },
    { text: ['Out of memory in phase generate', 'finished m3'], table: true, gauge: true,
      stderr: true },
    { text: ['concurrency'] },                                              // oom
    { text: ['short', 'usual', 'limit'], table: true },                     // measurements
  ],
};

module.exports = { EXPECTS };
