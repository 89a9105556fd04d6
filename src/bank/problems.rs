//! What is wrong with a bank: [`BankProblem`]s (each with its file, line,
//! column and field), gathered into one [`BankError`].

use std::fmt;
use std::path::{Path, PathBuf};

/// One problem in a sound bank: where, which field, and why.
///
/// ```
/// use voicepool::BankSource;
/// let err = BankSource::parse("bank.toml", "[cues.a]\nsounds = []\nlooping = \"yes\"\n").unwrap_err();
/// let p = &err.problems()[0];
/// assert_eq!((p.file.as_path(), p.line, p.field.as_str()), (std::path::Path::new("bank.toml"), 3, "cues.a.looping"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankProblem {
    /// The bank's file.
    pub file: PathBuf,
    /// Its line, from 1 (0: the file as a whole, as when it cannot be read).
    pub line: usize,
    /// Its column on that line, from 1 (0 with line 0).
    pub column: usize,
    /// The field, as a dotted path: `cues.footstep.sounds[2]`.
    pub field: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for BankProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display();
        if self.line == 0 {
            return write!(f, "{file}: {}", self.reason);
        }
        write!(
            f,
            "{file}:{}:{}: {}: {}",
            self.line, self.column, self.field, self.reason
        )
    }
}

/// Everything wrong with a sound bank, in the order of the file: at least
/// one [`BankProblem`]. Its text is one problem a line.
///
/// ```
/// use voicepool::{EngineSettings, OfflineEngine};
/// let engine = OfflineEngine::new(EngineSettings::default())?;
/// let dir = std::env::temp_dir().join(format!("voicepool-bank-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let bank = dir.join("bank.toml");
/// std::fs::write(&bank, "[cues.a]\nsounds = [\"gone.wav\"]\n[cues.b]\nsounds = []\n")?;
/// let err = engine.load_bank(&bank, &[]).unwrap_err();
/// assert_eq!(err.problems().len(), 2);
/// assert_eq!((err.problems()[0].line, err.problems()[1].line), (2, 4));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BankError {
    problems: Vec<BankProblem>,
}

impl BankError {
    /// Every problem, in the order of the file.
    pub fn problems(&self) -> &[BankProblem] {
        &self.problems
    }

    /// A problem with the file as a whole.
    pub(crate) fn whole(file: &Path, reason: &str) -> BankError {
        BankError {
            problems: vec![BankProblem {
                file: file.to_path_buf(),
                line: 0,
                column: 0,
                field: String::new(),
                reason: reason.to_owned(),
            }],
        }
    }
}

impl fmt::Display for BankError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, p) in self.problems.iter().enumerate() {
            if k > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl std::error::Error for BankError {}

/// Problems gathered while a bank is read and built.
pub(super) struct Problems<'a> {
    file: &'a Path,
    text: &'a str,
    found: Vec<(usize, BankProblem)>,
}

impl<'a> Problems<'a> {
    pub(super) fn new(file: &'a Path, text: &'a str) -> Problems<'a> {
        Problems {
            file,
            text,
            found: Vec::new(),
        }
    }

    /// A problem with `field`, at byte `at` of the text.
    pub(super) fn at(&mut self, at: usize, field: String, reason: String) {
        let (line, column) = line_and_column(self.text, at);
        self.found.push((
            at,
            BankProblem {
                file: self.file.to_path_buf(),
                line,
                column,
                field,
                reason,
            },
        ));
    }

    pub(super) fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// The problems found, in the order of the file, if any.
    pub(super) fn into_error(mut self) -> Option<BankError> {
        if self.found.is_empty() {
            return None;
        }
        self.found.sort_by_key(|(at, _)| *at);
        Some(BankError {
            problems: self.found.into_iter().map(|(_, p)| p).collect(),
        })
    }
}

/// Line and column (from 1; the column in characters) of byte `at`.
fn line_and_column(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |k| k + 1);
    (line, text[start..at].chars().count() + 1)
}

/// The dotted path of the key written at byte `at`, or of the key whose
/// value is written there (a value may run over several lines): the table
/// header above it (an array of tables with its index, `cues.a.maps[1]`),
/// then the key.
pub(super) fn field_at(text: &str, at: usize) -> String {
    let (line, _) = line_and_column(text, at);
    let mut table = String::new();
    let mut key = String::new();
    let mut seen: Vec<(String, usize)> = Vec::new();
    // Brackets open in a value that runs on to the next line.
    let mut depth = 0usize;
    for (k, raw) in text.lines().enumerate().take(line) {
        let l = strip_comment(raw).trim();
        if depth == 0 && l.starts_with('[') {
            let name = l
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .replace('"', "");
            table = if l.starts_with("[[") {
                let n = match seen.iter_mut().find(|(t, _)| *t == name) {
                    Some((_, n)) => {
                        *n += 1;
                        *n
                    }
                    None => {
                        seen.push((name.clone(), 0));
                        0
                    }
                };
                format!("{name}[{n}]")
            } else {
                name
            };
            key.clear();
            continue;
        }
        let value = if depth == 0 {
            match l.split_once('=') {
                Some((name, value)) => {
                    key = name.trim().replace('"', "");
                    value
                }
                None => {
                    if k + 1 == line {
                        key.clear();
                    }
                    l
                }
            }
        } else {
            l
        };
        let value = code_of(value);
        let opened = value.matches('[').count() + value.matches('{').count();
        let closed = value.matches(']').count() + value.matches('}').count();
        depth = (depth + opened).saturating_sub(closed);
    }
    match (table.is_empty(), key.is_empty()) {
        (true, _) => key,
        (false, true) => table,
        (false, false) => format!("{table}.{key}"),
    }
}

/// A line without its comment (a `#` outside strings and what follows).
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    let mut escaped = false;
    for (k, c) in line.char_indices() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (None, '#') => return &line[..k],
            (None, '"' | '\'') => quote = Some(c),
            (Some('"'), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            _ => {}
        }
    }
    line
}

/// A line without its comment and without what its strings hold (so that
/// neither a `#` nor a bracket in a string counts).
fn code_of(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '#') => break,
            (None, '"' | '\'') => {
                quote = Some(c);
                out.push(c);
            }
            (Some('"'), '\\') => {
                chars.next();
            }
            (Some(q), c) if c == q => {
                quote = None;
                out.push(c);
            }
            (Some(_), _) => {}
            (None, c) => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn lines_columns_and_fields_are_found_where_written() {
        let text = "[params]\nspeed = 1\n\n[cues.a]\n  sounds = [\"é\", 2]\n";
        assert_eq!(super::line_and_column(text, 0), (1, 1));
        let two = text.find('2').expect("2");
        assert_eq!(super::line_and_column(text, two), (5, 18));
        assert_eq!(super::field_at(text, two), "cues.a.sounds");
        assert_eq!(
            super::field_at(text, text.find("speed").expect("speed")),
            "params.speed"
        );
        assert_eq!(
            super::field_at(text, text.find("[cues").expect("header")),
            "cues.a"
        );
    }

    #[test]
    fn fields_are_found_past_comments_over_lines_and_in_arrays_of_tables() {
        let text = "[cues.step]    # a cue, by name\npich = 1.0\ncurve = [\n  [0.0, -40.0], # ]\n  [1.0, \"x]\"],\n]\n[[cues.step.maps]]\nparam = \"a\"\n[[cues.step.maps]]\ncurv = 1\n[cues.\"pas \u{e4}\"]\nsounds = [\n  \"a.wav\",\n  2,\n]\n";
        let at = |needle: &str| super::field_at(text, text.find(needle).expect(needle));
        assert_eq!(at("pich"), "cues.step.pich");
        assert_eq!(at("[1.0"), "cues.step.curve");
        assert_eq!(at("curv ="), "cues.step.maps[1].curv");
        assert_eq!(at("param"), "cues.step.maps[0].param");
        assert_eq!(at("2,"), "cues.pas \u{e4}.sounds");
    }
}
