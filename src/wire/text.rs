//! Repeating a client's text in an error line without repeating all of
//! it. The wire's own (the rules keep one for their errors too), so that
//! the protocol's vocabulary depends on nothing of the project.

use std::borrow::Cow;
use std::fmt;

/// Characters of a client's text an error line repeats before cutting it.
pub const ECHO_CHARS: usize = 40;

/// `text` as an error line repeats it: whole when short, otherwise its
/// start, `...` and its length, so a megabyte of junk costs one short line.
pub fn clip(text: &str) -> Cow<'_, str> {
    clip_to(text, ECHO_CHARS)
}

/// Characters of a path an error line repeats: a path is named whole (a
/// system's paths are at most 4096 bytes), so that the message names the
/// very file; only what could be no path is cut.
pub const PATH_CHARS: usize = 4096;

/// [`clip`] after `chars` characters.
pub fn clip_to(text: &str, chars: usize) -> Cow<'_, str> {
    match text.char_indices().nth(chars) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}... ({} bytes)", &text[..end], text.len())),
    }
}

/// [`clip`] for `Display`.
pub struct Clipped<'a>(pub &'a str);

impl fmt::Display for Clipped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&clip(self.0))
    }
}
