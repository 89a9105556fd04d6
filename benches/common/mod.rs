//! Shared by the benchmarks: a table of criterion's medians, read back from
//! its `estimates.json` files after the run.

use std::path::PathBuf;

/// True under `cargo bench` (which passes `--bench`), false under
/// `cargo test` or in criterion's `--test` mode.
pub fn benchmarking() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--test")
}

/// Where criterion writes its results (it runs benches from the package root).
fn criterion_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target"));
    target.join("criterion")
}

/// The median time per iteration in nanoseconds of benchmark `id`
/// (`group/function`), if it ran.
pub fn median_ns(id: &str) -> Option<f64> {
    let path = criterion_dir().join(id).join("new").join("estimates.json");
    let text = std::fs::read_to_string(path).ok()?;
    let median = &text[text.find("\"median\"")?..];
    let at = median.find("\"point_estimate\":")? + "\"point_estimate\":".len();
    let rest = &median[at..];
    let end = rest.find([',', '}'])?;
    rest[..end].trim().parse().ok()
}

/// Prints one line per benchmark: its median per iteration and divided by
/// `per` (work units per iteration) with `unit`.
pub fn print_medians(title: &str, rows: &[(String, f64, &str)]) {
    println!("\n{title} (criterion medians)");
    for (id, per, unit) in rows {
        match median_ns(id) {
            Some(ns) => println!(
                "  {id:<28} {:>12.1} ns/iter {:>10.3} ns/{unit}",
                ns,
                ns / per
            ),
            None => println!("  {id:<28} (not run)"),
        }
    }
}
