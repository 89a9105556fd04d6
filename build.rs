//! One cfg alias: `web` is a browser build (`wasm32-unknown-unknown` with
//! the `web` feature, on by default), where the live output is Web Audio
//! (src/output/web.rs) instead of cpal's output thread.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(web)");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let feature = std::env::var_os("CARGO_FEATURE_WEB").is_some();
    if arch == "wasm32" && os == "unknown" && feature {
        println!("cargo::rustc-cfg=web");
    }
    println!("cargo::rerun-if-changed=build.rs");
}
