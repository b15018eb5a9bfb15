//! A proof search's report in words: the lines `solve` prints after a
//! proof-number search, said where the search's figures are known, so
//! that the engine only passes them on.

use super::{ProofReport, BYTES_PER_STORED, BYTES_PER_WALKED};

/// One line of a proof search's report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReportLine {
    /// A line of information (`solve: ...`).
    Said(String),
    /// What went wrong (the certificate could not be written).
    Failed(String),
}

impl ProofReport {
    /// The report's lines, in order; `memory_given`: the bound `solve`
    /// was given (MiB), if any, which a search that stopped at it names.
    pub fn lines(&self, memory_given: Option<u64>) -> Vec<ReportLine> {
        let said = |text: String| ReportLine::Said(text);
        // A goal the search settled but whose proof did not hold, or was
        // too large to walk, under the full rules is open: said so, not
        // with its numbers (one of them the search's infinity).
        let open = |(pn, dn): (u32, u32)| match (pn, dn) {
            (0, 0) => "settled".to_string(),
            (0, _) => "proved by the search, not confirmed under the full rules".to_string(),
            (_, 0) => "disproved by the search, not confirmed under the full rules".to_string(),
            _ => format!("proof number {pn}, disproof number {dn}"),
        };
        let mut lines = vec![said(format!(
            "solve: proof-number search: {} after {} nodes, {} positions stored, {} table leaves, {:.1} s; side to move wins: {}; other side wins: {}",
            self.value,
            self.nodes,
            self.stored,
            self.table_hits,
            self.seconds,
            open(self.open[0]),
            open(self.open[1])
        ))];
        if let Some(walked) = self.walks.too_large {
            lines.push(said(format!(
                "solve: stopped walking a settled goal's proof under the full rules at {walked} positions, the most a quarter of the memory allows ({BYTES_PER_WALKED} bytes each); the value is a bound"
            )));
        } else if let Some(most) = self.memory_bound {
            let bound = match memory_given {
                Some(mib) => format!("the memory given ({mib} MiB)"),
                None => "the memory this process may use".to_string(),
            };
            lines.push(said(format!(
                "solve: stopped at {bound} ({most} positions stored, {BYTES_PER_STORED} bytes each); the value is a bound"
            )));
        }
        if let Some((kept, before)) = self.resumed {
            lines.push(said(format!(
                "solve: resumed from the checkpoint: {kept} settled positions, {before} nodes before this run"
            )));
        }
        if self.repairs > 0 {
            lines.push(said(format!(
                "solve: {} time(s) a result of the search with clock keys did not hold when its proof was walked under the full rules; the position where it failed was then kept by history and the search went on ({} walks, {} positions, {:.1} s)",
                self.repairs, self.walks.count, self.walks.positions, self.walks.seconds
            )));
        }
        if self.collections > 0 {
            lines.push(said(format!(
                "solve: the memory bound was reached {} times; open positions were dropped, settled ones kept",
                self.collections
            )));
        }
        match &self.certificate {
            Some(Ok(written)) => {
                for (claim, positions, leaves) in &written.claims {
                    lines.push(said(format!(
                        "solve: certificate: {claim}: {positions} positions, {leaves} leaves"
                    )));
                }
            }
            Some(Err(e)) => lines.push(ReportLine::Failed(e.to_string())),
            None => {}
        }
        if let Some(tree) = &self.proof {
            lines.push(said(format!(
                "solve: the proof: {} positions searched and {} leaves decided by the rules or the tables",
                tree.positions, tree.leaves
            )));
        }
        lines
    }
}
