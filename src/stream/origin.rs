//! Where a streamed sound's bytes come from: a file (opened anew by each
//! play) or memory the game gave ([`crate::Sound::stream_bytes`]: a
//! browser has no file system; a game may keep its sounds in an archive),
//! and the reader a decoder reads either through.
//!
//! Read by the loader (or an offline engine's game side), never by the
//! audio thread: opening a file or cloning the `Arc` of the bytes is fine
//! there.

use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::Arc;

use crate::sound::decode;
use crate::sound::SoundError;

/// A streamed sound's bytes.
#[derive(Clone, Debug)]
pub(crate) enum Origin {
    /// This file, opened by each play.
    File(PathBuf),
    /// These bytes, shared by every play.
    Bytes(Arc<[u8]>),
}

/// A decoder's way into a stream's bytes.
pub(crate) enum Reader {
    File(File),
    Bytes(Cursor<Arc<[u8]>>),
}

impl Origin {
    /// A reader at its start (a file opened again: it must still be a
    /// regular file).
    pub(crate) fn open(&self) -> Result<Reader, SoundError> {
        match self {
            Origin::File(path) => decode::open_regular(path).map(|(f, _)| Reader::File(f)),
            Origin::Bytes(bytes) => Ok(Reader::Bytes(Cursor::new(Arc::clone(bytes)))),
        }
    }
}

impl Read for Reader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Reader::File(f) => f.read(buf),
            Reader::Bytes(c) => c.read(buf),
        }
    }
}

impl Seek for Reader {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match self {
            Reader::File(f) => f.seek(to),
            Reader::Bytes(c) => c.seek(to),
        }
    }
}

impl symphonia::core::io::MediaSource for Reader {
    fn is_seekable(&self) -> bool {
        true
    }

    fn byte_len(&self) -> Option<u64> {
        match self {
            Reader::File(f) => f.metadata().ok().map(|m| m.len()),
            Reader::Bytes(c) => Some(c.get_ref().len() as u64),
        }
    }
}
