// Times workload W in a WebAssembly build of wasm-scene (feature `bench`)
// under Node: ns per voice-frame, the median of several rounds.
//
//   node scripts/wasm_w.mjs <module.wasm> [voices] [blocks] [rounds] [positioned]
import { readFileSync } from "node:fs";

const [path, voices = "256", blocks = "200", rounds = "9", positioned = ""] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(readFileSync(path), {});
const { w_new, w_blocks } = instance.exports;
const v = Number(voices), b = Number(blocks);
const frames = w_new(v, positioned === "positioned" ? 1 : 0);
w_blocks(20); // warm up
const ns = [];
for (let r = 0; r < Number(rounds); r++) {
  const t = process.hrtime.bigint();
  w_blocks(b);
  ns.push(Number(process.hrtime.bigint() - t) / (v * b * frames));
}
ns.sort((x, y) => x - y);
console.log(`${v} voices${positioned ? " positioned" : ""}: ${ns[ns.length >> 1].toFixed(3)} ns per voice-frame (median of ${rounds}; ${ns.map((x) => x.toFixed(3)).join(" ")})`);
