//! The picture of a run: one row per slot, a bar per voice, its level
//! inside, marks where voices were stolen and came back.

use std::fmt::Write as _;

use crate::*;

pub(crate) const SPARKLE_COLOURS: [&str; 6] = [
    "#6a4c93", "#4361ee", "#7209b7", "#3a86ff", "#9d4edd", "#4895ef",
];

/// The mark where a virtual voice came back (dark, to show on any bar).
pub(crate) const COMEBACK: &str = "#1d3557";

pub(crate) fn colour(sound: usize) -> &'static str {
    match sound {
        AMBIENCE => "#2a9d8f",
        SWISH => "#e76f51",
        s => SPARKLE_COLOURS[(s - 2) % SPARKLE_COLOURS.len()],
    }
}

pub(crate) fn short_name(sound: usize) -> String {
    match sound {
        AMBIENCE => "amb".into(),
        SWISH => "sw".into(),
        s => format!("s{}", s - 1),
    }
}

/// A voice's ranking level over its life, as a light area inside its bar
/// (`y`..`y + h`): -60 dB at the bottom, 0 dB at the top. Shows *why* a
/// victim was taken: the lowest area in the pool at that moment.
pub(crate) fn level_area(
    v: &VoiceRec,
    start: u64,
    end: u64,
    y: f64,
    h: f64,
    x: &dyn Fn(u64) -> f64,
) -> String {
    let points: Vec<(f64, f64)> = v
        .levels
        .iter()
        .filter(|&&(f, _)| f >= start && f <= end)
        .map(|&(f, l)| {
            let db = 20.0 * f64::from(l).max(1e-6).log10();
            let top = y + h * (1.0 - ((db + 60.0) / 60.0).clamp(0.0, 1.0));
            (x(f), top)
        })
        .collect();
    let (Some(first), Some(last)) = (points.first(), points.last()) else {
        return String::new();
    };
    let mut d = format!("M{:.1} {:.1}", first.0, y + h);
    for (px, py) in &points {
        let _ = write!(d, " L{px:.1} {py:.1}");
    }
    let _ = write!(d, " L{:.1} {:.1} Z", last.0, y + h);
    format!("<path d=\"{d}\" fill=\"#ffffff\" fill-opacity=\"0.45\" pointer-events=\"none\"/>\n")
}

/// The timeline: time across, one row per slot, a bar per voice labelled
/// with its sound and filled with its ranking level over time, a red mark
/// where a voice was stolen, rejected plays on a row of their own.
pub(crate) fn timeline_svg(show: &Show, bank: &Bank, slots: usize, policy: &str) -> String {
    let seconds = show.seconds(show.end_frame).max(0.001);
    let px_per_s = (1_500.0 / seconds).clamp(20.0, 160.0);
    let (left, row_h, bar_h) = (78.0, 30.0, 22.0);
    let plot_w = seconds * px_per_s;
    // The slots, then a row for virtual voices, then one for rejections.
    let rows = slots + 2;
    let width = (left + plot_w + 24.0).max(900.0);
    let rejected = show.voices.iter().filter(|v| v.rejected.is_some()).count();

    // Legend, wrapped to the picture's width.
    let mut items: Vec<(String, &str, &str)> = vec![
        (
            "ambience (looping, virtualizes)".into(),
            colour(AMBIENCE),
            "box",
        ),
        ("swish".into(), colour(SWISH), "box"),
    ];
    items.extend((2..bank.sounds.len()).map(|i| {
        (
            format!("{} = {}", short_name(i), bank.name(i)),
            colour(i),
            "box",
        )
    }));
    items.push((
        "inside a bar: its level as stealing ranks it (-60 to 0 dB)".into(),
        "#555555",
        "level",
    ));
    items.push((
        "stolen here (the next bar in the row is the thief)".into(),
        "#d62828",
        "mark",
    ));
    items.push((
        "virtual: keeping time silently, no voice (dashed)".into(),
        colour(AMBIENCE),
        "dashed",
    ));
    items.push((
        "back from virtual, at the sample it had reached".into(),
        COMEBACK,
        "resume",
    ));
    if rejected > 0 {
        items.push(("play rejected (never started)".into(), "#d62828", "cross"));
    }
    let mut legend = String::new();
    let (mut lx, mut ly) = (left, 58.0);
    for (label, c, kind) in items {
        let w = 24.0 + label.len() as f64 * 6.3;
        if lx + w > width - 8.0 && lx > left {
            lx = left;
            ly += 18.0;
        }
        let glyph = match kind {
            "box" => {
                format!(r#"<rect x="{lx:.1}" y="{ly}" width="12" height="12" rx="2" fill="{c}"/>"#)
            }
            "mark" => format!(r#"<path d="M{lx:.1} {ly} l10 0 l-5 9 z" fill="{c}"/>"#),
            "dashed" => format!(
                r#"<rect x="{lx:.1}" y="{:.1}" width="12" height="10" rx="2" fill="none" stroke="{c}" stroke-width="1.5" stroke-dasharray="3 2"/>"#,
                ly + 1.0
            ),
            "resume" => format!(r#"<path d="M{lx:.1} {ly} l0 12 l9 -6 z" fill="{c}"/>"#),
            "level" => format!(
                r##"<rect x="{lx:.1}" y="{ly}" width="12" height="12" rx="2" fill="{c}"/><path d="M{lx:.1} {:.1} l3 -6 l3 3 l3 -8 l3 5 l0 6 z" fill="#ffffff" fill-opacity="0.55"/>"##,
                ly + 12.0
            ),
            _ => format!(
                r#"<path d="M{:.1} {:.1} l7 7 m0 -7 l-7 7" stroke="{c}" stroke-width="1.6"/>"#,
                lx + 2.0,
                ly + 2.5
            ),
        };
        let _ = writeln!(
            legend,
            r##"{glyph}<text x="{:.1}" y="{:.1}" font-size="11" fill="#333">{label}</text>"##,
            lx + 16.0,
            ly + 10.5
        );
        lx += w;
    }
    let top = ly + 34.0;
    let height = top + rows as f64 * row_h + 44.0;
    let x = |frame: u64| left + show.seconds(frame) * px_per_s;
    let steals = show.voices.iter().filter(|v| v.stolen_by.is_some()).count();
    let unplaced = show
        .voices
        .iter()
        .filter(|v| v.start.is_some() && v.slot.is_none())
        .count();

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    let _ = writeln!(
        s,
        r##"<text x="{left}" y="26" font-size="17" font-weight="bold" fill="#222">wand_swish: {slots} voices, policy {policy}, {seconds:.1} s</text>"##
    );
    let _ = writeln!(
        s,
        r##"<text x="{left}" y="46" font-size="12" fill="#444">{} plays, {steals} stolen (red marks), {rejected} rejected; the wand swished {} of {} times{}</text>"##,
        show.plays,
        show.swishes - show.swishes_rejected,
        show.swishes,
        if unplaced > 0 {
            format!("; {unplaced} voices too short to place in a slot are not drawn")
        } else {
            String::new()
        }
    );
    s.push_str(&legend);
    // Rows and grid.
    for r in 0..rows {
        let y = top + r as f64 * row_h;
        let fill = if r % 2 == 0 { "#f6f6f8" } else { "#ececf0" };
        let label = if r < slots {
            format!("slot {r}")
        } else if r == slots {
            "virtual".into()
        } else {
            "rejected".into()
        };
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{y:.1}" width="{plot_w:.1}" height="{row_h}" fill="{fill}"/><text x="{:.1}" y="{:.1}" font-size="12" text-anchor="end" fill="#333">{label}</text>"##,
            left - 8.0,
            y + row_h / 2.0 + 4.0
        );
    }
    let bottom = top + rows as f64 * row_h;
    let step = if seconds > 30.0 { 5.0 } else { 1.0 };
    let mut t = 0.0;
    while t <= seconds + 1e-9 {
        let tx = left + t * px_per_s;
        let _ = writeln!(
            s,
            r##"<line x1="{tx:.1}" y1="{top}" x2="{tx:.1}" y2="{:.1}" stroke="#c8c8d0" stroke-width="1"/><text x="{tx:.1}" y="{:.1}" font-size="11" text-anchor="middle" fill="#555">{t:.0} s</text>"##,
            bottom + 4.0,
            bottom + 17.0
        );
        t += step;
    }
    for (i, &c) in show.casts.iter().enumerate() {
        let cx = x(c);
        let _ = writeln!(
            s,
            r##"<line x1="{cx:.1}" y1="{:.1}" x2="{cx:.1}" y2="{bottom:.1}" stroke="#e76f51" stroke-width="1" stroke-dasharray="3 3" opacity="0.6"/><text x="{cx:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="#c0502e">{}</text>"##,
            top - 10.0,
            top - 12.0,
            if i == 0 {
                "cast 1".to_string()
            } else {
                (i + 1).to_string()
            }
        );
    }
    // Voices.
    let end_all = show.end_frame;
    for v in &show.voices {
        let (Some(slot), Some(start)) = (v.slot, v.start) else {
            continue;
        };
        let end = v.end.unwrap_or(end_all).max(start);
        let (x0, x1) = (x(start), x(end));
        let w = (x1 - x0).max(1.0);
        let y = top + slot as f64 * row_h + (row_h - bar_h) / 2.0;
        let name = bank.name(v.sound);
        let how = match v.stolen_by {
            Some(t) => format!(", stolen by {}", bank.name(show.voices[t].sound)),
            None if v.virtualized => ", went virtual".into(),
            None if v.end.is_some() => ", ended".into(),
            None => String::new(),
        };
        if v.resumed {
            let ty = top + slot as f64 * row_h;
            let _ = writeln!(
                s,
                r##"<path d="M{x0:.1} {:.1} l0 12 l9 -6 z" fill="{COMEBACK}" stroke="#ffffff" stroke-width="0.8"><title>{} back from virtual in slot {slot} at {:.3} s</title></path>"##,
                ty + 1.0,
                bank.name(v.sound),
                show.seconds(start)
            );
        }
        let _ = writeln!(
            s,
            r##"<rect x="{x0:.2}" y="{y:.1}" width="{w:.2}" height="{bar_h}" rx="2" fill="{}" stroke="#ffffff" stroke-width="0.8"><title>{name} in slot {slot}: {:.3} s to {:.3} s{how}</title></rect>"##,
            colour(v.sound),
            show.seconds(start),
            show.seconds(end)
        );
        s.push_str(&level_area(v, start, end, y, bar_h, &x));
        let short = short_name(v.sound);
        let label = if w > name.len() as f64 * 6.2 + 6.0 {
            Some(name.to_string())
        } else if w > short.len() as f64 * 6.2 + 3.0 {
            Some(short)
        } else {
            None
        };
        if let Some(label) = label {
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="10.5" fill="#ffffff" pointer-events="none">{label}</text>"##,
                x0 + 3.0,
                y + bar_h / 2.0 + 3.8
            );
        }
        if let Some(t) = v.stolen_by {
            let thief = bank.name(show.voices[t].sound);
            let ty = top + slot as f64 * row_h;
            let level = v.levels.last().map_or(String::new(), |&(_, l)| {
                format!(", its level {:.0} dB", 20.0 * l.max(1e-6).log10())
            });
            let _ = writeln!(
                s,
                r##"<path d="M{:.1} {ty:.1} l8 0 l-4 7 z" fill="#d62828"><title>{name} stolen by {thief} at {:.3} s{level}</title></path><line x1="{x1:.1}" y1="{ty:.1}" x2="{x1:.1}" y2="{:.1}" stroke="#d62828" stroke-width="1.2"/>"##,
                x1 - 4.0,
                show.seconds(end),
                ty + row_h
            );
        }
    }
    for span in &show.virtual_spans {
        let to = span.to.unwrap_or(end_all).max(span.from);
        let (x0, x1) = (x(span.from), x(to));
        let y = top + slots as f64 * row_h + (row_h - bar_h) / 2.0;
        let name = bank.name(span.sound);
        let how = if span.resumed {
            "came back"
        } else if span.to.is_some() {
            "ended while virtual"
        } else {
            "still virtual at the end"
        };
        let _ = writeln!(
            s,
            r##"<rect x="{x0:.2}" y="{y:.1}" width="{:.2}" height="{bar_h}" rx="2" fill="{c}" fill-opacity="0.12" stroke="{c}" stroke-width="1.5" stroke-dasharray="5 3"><title>{name} virtual from {:.3} s to {:.3} s: keeping time silently, then {how}</title></rect>"##,
            (x1 - x0).max(1.0),
            show.seconds(span.from),
            show.seconds(to),
            c = colour(span.sound)
        );
        if (x1 - x0) > name.len() as f64 * 6.2 + 6.0 {
            let _ = writeln!(
                s,
                r##"<text x="{:.1}" y="{:.1}" font-size="10.5" fill="{}" pointer-events="none">{name} (virtual)</text>"##,
                x0 + 3.0,
                y + bar_h / 2.0 + 3.8,
                colour(span.sound)
            );
        }
        if span.resumed {
            let _ = writeln!(
                s,
                r##"<path d="M{x1:.1} {:.1} l0 12 l9 -6 z" fill="{COMEBACK}"/>"##,
                y + (bar_h - 12.0) / 2.0
            );
        }
    }
    for v in &show.voices {
        if let Some(at) = v.rejected {
            let rx = x(at);
            let ry = top + (slots + 1) as f64 * row_h + row_h / 2.0;
            let _ = writeln!(
                s,
                r##"<g stroke="#d62828" stroke-width="1.6"><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/><line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/></g><title>{} rejected at {:.3} s</title>"##,
                rx - 3.5,
                ry - 3.5,
                rx + 3.5,
                ry + 3.5,
                rx - 3.5,
                ry + 3.5,
                rx + 3.5,
                ry - 3.5,
                bank.name(v.sound),
                show.seconds(at)
            );
            if v.sound == SWISH {
                let _ = writeln!(
                    s,
                    r##"<text x="{rx:.1}" y="{:.1}" font-size="10" text-anchor="middle" fill="#d62828">swish!</text>"##,
                    ry - 6.0
                );
            }
        }
    }
    let _ = writeln!(
        s,
        r##"<text x="{left}" y="{:.1}" font-size="11" fill="#666">time (s); each bar is one voice in its slot, labelled with its sound; a bar ends where its sound ended, was stolen or went virtual</text>"##,
        bottom + 34.0
    );
    s.push_str("</svg>\n");
    s
}
