//! The engine that comes with menagerie, next to the program asking.

use std::fmt;
use std::path::PathBuf;

/// The bundled engine is not where it should be.
#[derive(Debug)]
pub enum BundledError {
    /// This program's own path is unknown.
    NoExe(std::io::Error),
    /// Where the engine was looked for.
    Missing(PathBuf),
}

impl fmt::Display for BundledError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            BundledError::NoExe(e) => write!(f, "cannot locate this program: {e}"),
            BundledError::Missing(path) => write!(
                f,
                "the bundled engine is not at {} (build it: cargo build --release)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for BundledError {}

/// `menagerie` in the directory of the running program.
pub fn engine() -> Result<PathBuf, BundledError> {
    let exe = std::env::current_exe().map_err(BundledError::NoExe)?;
    let engine = exe.with_file_name(format!("menagerie{}", std::env::consts::EXE_SUFFIX));
    if engine.exists() {
        Ok(engine)
    } else {
        Err(BundledError::Missing(engine))
    }
}
