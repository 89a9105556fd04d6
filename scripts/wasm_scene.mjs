// Renders wasm-scene's scene in WebAssembly, under Node: instantiates the
// module (it imports nothing), renders, and writes the samples (f32,
// little-endian, as WebAssembly's memory holds them) to a file.
//
//   node scripts/wasm_scene.mjs <voicepool_wasm_scene.wasm> <out.f32>
import { readFileSync, writeFileSync } from "node:fs";

const [wasmPath, outPath] = process.argv.slice(2);
if (!wasmPath || !outPath) {
  console.error("usage: node scripts/wasm_scene.mjs <module.wasm> <out.f32>");
  process.exit(2);
}
const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
// What has no thread, file system or clock here must fail with an error,
// not trap (a Rust panic traps): each bit one call (see wasm-scene's
// `edges`).
const edges = instance.exports.scene_edges();
const named = ["a sound streamed from bytes", "a sound from a file", "a streamed sound",
  "a sound bank from a file", "a recording to a file", "an offline play's events",
  "an AudioEngine without the web feature"];
const missed = named.filter((_, k) => !(edges & (1 << k)));
if (missed.length) {
  console.error(`wasm scene: no clear answer in WebAssembly for: ${missed.join(", ")}`);
  process.exit(1);
}
console.log(`wasm scene: no thread, file system or clock: ${named.length} calls answered with errors or as natively`);
const started = process.hrtime.bigint();
const len = instance.exports.scene_render();
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const ptr = instance.exports.scene_ptr();
const bytes = new Uint8Array(instance.exports.memory.buffer, ptr, len * 4);
writeFileSync(outPath, bytes);
console.log(`wasm scene: ${len} samples rendered in WebAssembly in ${ms.toFixed(0)} ms`);
