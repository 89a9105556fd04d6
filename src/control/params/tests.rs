use super::*;

#[test]
fn nan_and_infinity_are_rejected_finite_values_clamped() {
    assert!(PlayParams::default()
        .volume(f32::NAN)
        .validate(EngineId::next())
        .is_err());
    assert!(PlayParams::default()
        .pan(f32::INFINITY)
        .validate(EngineId::next())
        .is_err());
    assert!(PlayParams::default()
        .pitch(f32::NEG_INFINITY)
        .validate(EngineId::next())
        .is_err());
    for pitch in [0.0, -0.0, -2.0] {
        assert!(PlayParams::default()
            .pitch(pitch)
            .validate(EngineId::next())
            .is_err());
    }
    let v = PlayParams::default()
        .volume(100.0)
        .pan(-7.0)
        .pitch(1e-9)
        .fade_in(-1.0)
        .validate(EngineId::next())
        .unwrap();
    assert_eq!(
        (v.volume, v.pan, v.pitch, v.fade_in),
        (MAX_VOLUME, -1.0, MIN_PITCH, 0.0)
    );
    assert_eq!(valid_volume(1e-9).unwrap(), 0.0);
    assert_eq!(valid_volume(-3.0).unwrap(), 0.0);
}
