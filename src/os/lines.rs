//! Reading lines of bounded length: however long a line a writer sends,
//! the reader holds at most the limit of it, and learns the whole length.

use std::io::{BufRead, ErrorKind};

/// One line read, without its line end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// The line's first bytes, at most the reader's limit.
    pub bytes: Vec<u8>,
    /// The whole line's length in bytes.
    pub length: usize,
}

impl Line {
    /// Whether the line was longer than the limit (and `bytes` cut).
    pub fn is_cut(&self) -> bool {
        self.length > self.bytes.len()
    }
}

/// Lines of `reader`, each kept to at most `max` bytes (the rest of a
/// longer line is read and dropped). A last line without a line end still
/// counts; the lines end with the input or at the first read error.
pub struct BoundedLines<R> {
    reader: R,
    max: usize,
    ended: bool,
}

impl<R: BufRead> BoundedLines<R> {
    pub fn new(reader: R, max: usize) -> BoundedLines<R> {
        BoundedLines {
            reader,
            max,
            ended: false,
        }
    }
}

impl<R: BufRead> Iterator for BoundedLines<R> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        if self.ended {
            return None;
        }
        let mut bytes = Vec::new();
        let mut length = 0usize;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(_) => &[],
            };
            if chunk.is_empty() {
                self.ended = true;
                return (length > 0).then_some(Line { bytes, length });
            }
            let (piece, newline) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (&chunk[..i], true),
                None => (chunk, false),
            };
            if bytes.len() < self.max {
                let room = self.max - bytes.len();
                bytes.extend_from_slice(&piece[..piece.len().min(room)]);
            }
            length += piece.len();
            let used = piece.len() + usize::from(newline);
            self.reader.consume(used);
            if newline {
                return Some(Line { bytes, length });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Line> {
        // A tiny buffer, so lines cross many reads.
        BoundedLines::new(std::io::BufReader::with_capacity(3, input), max).collect()
    }

    #[test]
    fn long_lines_are_cut_and_measured_short_ones_kept() {
        let found = lines(b"go\n\nxxxxxxxxxx\nlast", 4);
        let texts: Vec<(&[u8], usize)> = found.iter().map(|l| (&l.bytes[..], l.length)).collect();
        assert_eq!(
            texts,
            [
                (&b"go"[..], 2),
                (&b""[..], 0),
                (&b"xxxx"[..], 10),
                (&b"last"[..], 4)
            ]
        );
        assert!(found[2].is_cut() && !found[0].is_cut());
    }

    #[test]
    fn a_blank_line_counts_and_the_end_has_none() {
        assert_eq!(lines(b"\n", 8).len(), 1);
        assert!(lines(b"", 8).is_empty());
        assert_eq!(lines(b"a\r\n", 8)[0].bytes, b"a\r");
    }
}
