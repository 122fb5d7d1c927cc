// What a reader must see in each notebook the browser tests run, cell by
// cell, whatever the frontend (notebook.cjs: classic Notebook 6; lab.cjs:
// JupyterLab 4 and Notebook 7).
'use strict';

// Per notebook, the code cells in order with what each must show. gauge: the
// cell's live gauge must show its bars while the measurement still runs.
// stderr: the cell's command writes to stderr on purpose.
const EXPECTS = {
  '00-first-steps.ipynb': [
    { text: ['convert'] },                                                  // help
    { text: ['22.35 GiB'] },                                                // convert 24GB GiB
    { text: ['GiB'] },                                                      // help convert
  ],
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
    { text: ['GPU offer: H100 SXM', 'GPU offer: L40S', 'vLLM 0.6 with fp8 KV cache'], table: true },  // offers
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
  '03-qlora-finetune.ipynb': [
    { text: ['gradients', 'optimizer_state'], table: true },                // card, unknowns
    { text: ['optimizer_state', 'quant_metadata'] },                        // quant, training
    { text: ['activations'], table: true },                                 // no checkpointing
    { text: ['activations'], table: true },                                 // full checkpointing
    { text: ['activations'], table: true },                                 // DDP
    { text: ['two cards are never one memory space'], table: true },        // ZeRO-3
  ],
  '05-reproduce-a-decision.ipynb': [
    { text: ['13b-inference-campaign-a'] },                                 // card
    { text: ['Committed sheet'] },                                          // commits
    { text: ['KV cache estimated, one measurement'], table: true },         // history
    { text: ['kv_cache'] },                                                 // diff
    { text: ['to re-measure'] },                                            // reproduce
  ],
  '06-engines-and-fit.ipynb': [
    { text: ['70,553,706,496 params'] },                                    // card from config.json
    { text: ['40.00 GiB', 'kv_cache', 'KV heads per GPU: full layers 4 of 8'], table: true },  // placement, KV
    { text: ['GPU offer: L40S'], table: true },                             // offers
    { text: ['7.57x', '248,032', 'bf16 no (pool 5.97 GiB, 1.19x)'], table: true },  // engine, fit
    { text: ['H100 SXM', 'L40S', 'exclude', 'to-confirm'], table: true },   // candidates
    { text: ['imported 7 measurement(s)', 'vllm.kv_cache_memory'], table: true },  // log
    { text: ['covers', 'vllm.model_weights'], table: true },                // compare
    { text: ['53.68 GiB', 'admissible'], table: true },                     // fit, all known
    { text: ['Committed sheet'] },                                          // commit both
  ],
};

module.exports = { EXPECTS };
