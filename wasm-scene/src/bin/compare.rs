//! Renders the scene natively and compares it, bit for bit, with the
//! samples the WebAssembly build rendered (a file of little-endian f32s):
//!
//!     cargo run --release -p voicepool-wasm-scene --bin compare -- out/wasm_scene.f32
//!
//! Prints the figures and exits 1 at any difference, naming the first.

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: compare <samples.f32>");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("compare: {path}: cannot read: {e}");
            return ExitCode::from(2);
        }
    };
    let wasm: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let native: Vec<u32> = voicepool_wasm_scene::scene()
        .iter()
        .map(|s| s.to_bits())
        .collect();
    let peak = voicepool_wasm_scene::scene()
        .iter()
        .fold(0.0f32, |m, s| m.max(s.abs()));
    let differ = native.iter().zip(&wasm).filter(|(a, b)| a != b).count();
    println!(
        "wasm scene: {} samples native, {} from wasm, peak {peak:.3}, {differ} differ",
        native.len(),
        wasm.len()
    );
    if native.len() != wasm.len() {
        eprintln!("compare: the renders differ in length");
        return ExitCode::FAILURE;
    }
    if let Some(k) = native.iter().zip(&wasm).position(|(a, b)| a != b) {
        eprintln!(
            "compare: first difference at sample {k} (frame {}): native {} wasm {}",
            k / 2,
            f32::from_bits(native[k]),
            f32::from_bits(wasm[k])
        );
        return ExitCode::FAILURE;
    }
    if peak < 0.01 {
        eprintln!("compare: the scene is silent");
        return ExitCode::FAILURE;
    }
    println!("wasm scene: bit-identical");
    ExitCode::SUCCESS
}
