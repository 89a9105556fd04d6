use super::*;

#[test]
fn the_peak_is_the_largest_magnitude() {
    assert_eq!(peak(&[0.1, -0.7, 0.3, 1e-30]), 0.7);
    assert_eq!(peak(&[]), 0.0);
    assert_eq!(peak(&[-0.0, 0.0]), 0.0);
    assert!(peak_of_both(&[f32::NAN], &[0.5]).is_nan());
    assert!(peak_of_both(&[0.5], &[f32::NAN]).is_nan());
    assert_eq!(peak_of_both(&[0.25], &[-0.5]), 0.5);
}

#[test]
fn a_ramp_moves_linearly_and_lands_on_its_target() {
    let mut r = Ramp::steady(1.0);
    r.to(0.0, 4);
    let s = r.step();
    let gains: Vec<f32> = (0..6).map(|i| r.at(i, s)).collect();
    assert_eq!(gains, [1.0, 0.75, 0.5, 0.25, 0.0, 0.0]);
    r.advance(2);
    assert_eq!((r.value, r.left), (0.5, 2));
    r.advance(5);
    assert_eq!((r.value, r.left), (0.0, 0));
}

#[test]
fn a_pause_from_silence_freezes_at_once() {
    let mut b = Buses::new(1, 1.0, 100);
    b.set_paused(1, true);
    b.begin_chunk(200);
    b.finish_chunk(&mut [0.0; 400], Isa::Scalar);
    // Frozen; a resume and a pause before the next block: still held.
    b.set_paused(1, false);
    b.set_paused(1, true);
    b.begin_chunk(64);
    assert_eq!(b.render_limit(1), 0);
    // 64 frames into a resume's 100-frame fade, a pause fades out in 64.
    b.set_paused(1, false);
    b.finish_chunk(&mut [0.0; 128], Isa::Scalar);
    b.set_paused(1, true);
    b.begin_chunk(100);
    assert_eq!(b.render_limit(1), 64);
}

#[test]
fn a_paused_bus_renders_up_to_its_fade_then_freezes() {
    let mut b = Buses::new(2, 1.0, 100);
    b.set_paused(1, true);
    b.begin_chunk(64);
    assert_eq!((b.render_limit(0), b.render_limit(1)), (64, 64));
    b.finish_chunk(&mut [0.0; 128], Isa::Scalar);
    b.begin_chunk(64);
    assert_eq!(b.render_limit(1), 36);
    assert!(!b.frozen(1));
    b.finish_chunk(&mut [0.0; 128], Isa::Scalar);
    assert!(b.frozen(1) && !b.frozen(2) && !b.frozen(0));
    b.begin_chunk(64);
    assert_eq!(b.render_limit(1), 0);
    // The master's pause freezes every bus.
    b.set_paused(0, true);
    b.set_paused(1, false);
    assert_eq!(b.render_limit(2), 64);
    b.finish_chunk(&mut [0.0; 128], Isa::Scalar);
    b.begin_chunk(64);
    assert_eq!(b.render_limit(2), 36);
}
