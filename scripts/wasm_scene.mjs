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
const started = process.hrtime.bigint();
const len = instance.exports.scene_render();
const ms = Number(process.hrtime.bigint() - started) / 1e6;
const ptr = instance.exports.scene_ptr();
const bytes = new Uint8Array(instance.exports.memory.buffer, ptr, len * 4);
writeFileSync(outPath, bytes);
console.log(`wasm scene: ${len} samples rendered in WebAssembly in ${ms.toFixed(0)} ms`);
