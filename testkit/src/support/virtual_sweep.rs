//! A large virtual pool: paused and resumed (held voices' end frames worked
//! out over several blocks) while a full pool takes newcomers, then a
//! `stop_all` swept over several blocks while the game keeps sending:
//! setters for stopped virtual voices, new plays that go virtual (into a
//! pool full of stopped voices), another `stop_all` during the sweep. Shared by the allocation-counting test and
//! the RealtimeSanitizer job: `process` renders one block of `frames`.

use voicepool::{Engine, EngineSettings, Mixer, PlayParams, Sound, Stats};

pub fn virtual_sweep(mut process: impl FnMut(&mut Mixer, usize)) -> Stats {
    let count = 6_000;
    let (mut engine, mut mixer) = Engine::new(EngineSettings {
        voices: 4,
        virtual_voices: count,
        command_capacity: 4_096,
        event_capacity: 1_024,
        ..Default::default()
    })
    .unwrap();
    let hum = Sound::from_samples(1, 48_000, vec![0.2; 48_000]).unwrap();
    for _ in 0..4 {
        engine
            .play(&hum, PlayParams::default().looping(true).protected(true))
            .unwrap();
    }
    let quiet = PlayParams::default()
        .looping(true)
        .virtualize(true)
        .volume(0.01);
    let mut plays = Vec::new();
    while plays.len() < count {
        for _ in 0..500 {
            if let Ok(h) = engine.play(&hum, quiet) {
                plays.push(h);
            }
        }
        process(&mut mixer, 480);
        engine.drain_events().for_each(drop);
    }
    process(&mut mixer, 480);
    // A paused master holds every virtual voice (end frames unknown); the
    // resume has them worked out a bounded number per block, while a full
    // pool takes newcomers (its least deserving found from span summaries).
    let shot = Sound::from_samples(1, 48_000, vec![0.2; 4_800]).unwrap();
    engine.pause_bus(engine.master_bus()).unwrap();
    for _ in 0..4 {
        for _ in 0..20 {
            let _ = engine.play(&shot, quiet.looping(false).volume(0.5));
        }
        process(&mut mixer, 480);
    }
    engine.resume_bus(engine.master_bus()).unwrap();
    for _ in 0..8 {
        process(&mut mixer, 480);
        engine.drain_events().for_each(drop);
    }
    for round in 0..40 {
        if round == 0 || round == 3 {
            engine.stop_all().unwrap();
        }
        // Commands for voices stopped but not yet swept, and new plays
        // that need room in a pool full of them.
        for &h in plays.iter().skip(round * 97).step_by(211).take(20) {
            let _ = engine.set_volume(h, 0.5);
        }
        for _ in 0..50 {
            if let Ok(h) = engine.play(&hum, quiet.volume(0.5)) {
                plays.push(h);
            }
        }
        process(&mut mixer, [480, 1, 0, 1024][round % 4]);
        if round % 2 == 0 {
            engine.drain_events().for_each(drop);
        }
    }
    engine.stop_all().unwrap();
    for _ in 0..20 {
        process(&mut mixer, 480);
        engine.drain_events().for_each(drop);
    }
    mixer.check_invariants().unwrap();
    engine.stats()
}
