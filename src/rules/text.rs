//! Echoing user text in messages without echoing all of it.

use std::borrow::Cow;
use std::fmt;

/// Characters of user text an error message repeats before cutting it.
pub const ECHO_CHARS: usize = 40;

/// `text` as an error message repeats it: whole when short, otherwise its
/// start, `...` and its length, so a megabyte of junk costs one short line.
pub fn clip(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(ECHO_CHARS) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}... ({} bytes)", &text[..end], text.len())),
    }
}

/// [`clip`] for `Display`: `format!("'{}'", Clipped(text))`.
pub struct Clipped<'a>(pub &'a str);

impl fmt::Display for Clipped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&clip(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_stays_long_text_is_cut_on_a_character() {
        assert_eq!(clip("go"), "go");
        let long = "é".repeat(100);
        let clipped = clip(&long);
        assert!(clipped.starts_with(&"é".repeat(ECHO_CHARS)));
        assert!(clipped.ends_with("... (200 bytes)"), "{clipped}");
        assert_eq!(clip(&"x".repeat(ECHO_CHARS)), "x".repeat(ECHO_CHARS));
    }
}
