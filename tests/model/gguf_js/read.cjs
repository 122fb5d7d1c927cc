// node read.cjs MODULE_DIR FILE... — Hugging Face's @huggingface/gguf parser
// on each file, as JSON on stdout (BigInts as decimal strings).
const path = require("path");
const { gguf } = require(path.join(process.argv[2], "node_modules", "@huggingface", "gguf"));

function plain(v) {
  if (typeof v === "bigint") return v.toString();
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) o[k] = plain(v[k]);
    return o;
  }
  return v;
}

(async () => {
  const out = {};
  for (const file of process.argv.slice(3)) {
    const r = await gguf(file, { allowLocalFile: true });
    const meta = {};
    for (const k of Object.keys(r.metadata)) {
      if (k.startsWith("tokenizer.")) continue;
      meta[k] = plain(r.metadata[k]);
    }
    out[file] = {
      metadata: meta,
      tensorDataOffset: plain(r.tensorDataOffset),
      tensors: r.tensorInfos.map((t) => ({
        name: t.name,
        dtype: t.dtype,
        shape: t.shape.map((s) => s.toString()),
        offset: t.offset.toString(),
      })),
    };
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => {
  console.error(String(e && e.stack ? e.stack : e));
  process.exit(1);
});
