//! A reference K-weighting (ITU-R BS.1770-4) at 48 kHz, with the standard's
//! published coefficients, written apart from the library's own (which
//! derives its coefficients for any rate): what the stealing tests and the
//! `steal_regret` example measure the library's ranking against.

/// K-weights one channel of 48 kHz samples in place: the pre-filter (a
/// high shelf), then the RLB high-pass.
pub fn k_weight(x: &mut [f64]) {
    let stages: [([f64; 3], [f64; 2]); 2] = [
        (
            [
                1.535_124_859_586_97,
                -2.691_696_189_406_38,
                1.198_392_810_852_85,
            ],
            [-1.690_659_293_182_41, 0.732_480_774_215_85],
        ),
        (
            [1.0, -2.0, 1.0],
            [-1.990_047_454_833_98, 0.990_072_250_366_21],
        ),
    ];
    for (b, a) in stages {
        let (mut x1, mut x2, mut y1, mut y2) = (0.0, 0.0, 0.0, 0.0);
        for v in x.iter_mut() {
            let y = b[0] * *v + b[1] * x1 + b[2] * x2 - a[0] * y1 - a[1] * y2;
            (x2, x1, y2, y1) = (x1, *v, y1, y);
            *v = y;
        }
    }
}
