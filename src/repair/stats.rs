//! Repair statistics: how often each rung fired and how each repair ended, so `status` can
//! show which failure mode a model actually has.
//!
//! Pure counting ([`Stats::record`], [`Stats::record_call`], [`Stats::merge`]); the file the
//! counts are kept in is read and written by [`crate::files::stats`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::outcome::{RepairFailure, Repaired};

/// Counts of repairs, persisted as JSON:
/// `{"version":1,"total":N,"outcomes":{"repaired":N,"truncated":N,...},
/// "rungs":{"none":N,"fence":N,...},"changed":{"fence":N,...}}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// The file format's version; 1.
    #[serde(default = "format_version")]
    pub version: u32,
    /// How many repairs were recorded.
    #[serde(default)]
    pub total: u64,
    /// Per outcome: `repaired` (including valid-as-is) or a failure class name.
    #[serde(default)]
    pub outcomes: BTreeMap<String, u64>,
    /// Per reported rung, for the repairs that succeeded.
    #[serde(default)]
    pub rungs: BTreeMap<String, u64>,
    /// Per rung, how often it changed something (successes and failures alike).
    #[serde(default)]
    pub changed: BTreeMap<String, u64>,
    /// Structured calls by how they ended ([`CallEnding`]): valid as the first answer came,
    /// fixed by repair, fixed by a re-ask, or failed. Only the call path records these; absent
    /// from the file until it does.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub calls: BTreeMap<String, u64>,
}

/// How one structured call got its answer, for [`Stats::record_call`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallEnding {
    /// The first answer was valid as it came.
    AsIs,
    /// The first answer needed the repair ladder.
    Repaired,
    /// A re-ask gave the answer (whatever the repair it needed).
    Reasked,
    /// No valid answer.
    Failed,
}

impl CallEnding {
    /// The counter's name: `as_is`, `repaired`, `reasked`, `failed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            CallEnding::AsIs => "as_is",
            CallEnding::Repaired => "repaired",
            CallEnding::Reasked => "reasked",
            CallEnding::Failed => "failed",
        }
    }
}

/// The version of the stats file's format this build reads and writes.
pub const STATS_FORMAT_VERSION: u32 = 1;

fn format_version() -> u32 {
    STATS_FORMAT_VERSION
}

/// Adds `count` to the counter `name`, stopping at `u64::MAX`.
fn bump(counters: &mut BTreeMap<String, u64>, name: &str, count: u64) {
    let counter = counters.entry(name.to_owned()).or_default();
    *counter = counter.saturating_add(count);
}

impl Stats {
    /// Empty counts.
    pub fn new() -> Stats {
        Stats {
            version: format_version(),
            ..Stats::default()
        }
    }

    /// Counts one repair's result. Counters stop at `u64::MAX` rather than wrap.
    pub fn record(&mut self, result: &Result<Repaired, RepairFailure>) {
        self.total = self.total.saturating_add(1);
        let (outcome, changed) = match result {
            Ok(repaired) => {
                bump(&mut self.rungs, repaired.rung.as_str(), 1);
                ("repaired", &repaired.rungs_changed)
            }
            Err(failure) => (failure.class.as_str(), &failure.rungs_changed),
        };
        bump(&mut self.outcomes, outcome, 1);
        for rung in changed {
            bump(&mut self.changed, rung.as_str(), 1);
        }
    }

    /// Counts how one structured call ended.
    pub fn record_call(&mut self, ending: CallEnding) {
        bump(&mut self.calls, ending.as_str(), 1);
    }

    /// Adds `other`'s counts to these (saturating, like [`Stats::record`]).
    pub fn merge(&mut self, other: &Stats) {
        self.total = self.total.saturating_add(other.total);
        for (mine, theirs) in [
            (&mut self.outcomes, &other.outcomes),
            (&mut self.rungs, &other.rungs),
            (&mut self.changed, &other.changed),
            (&mut self.calls, &other.calls),
        ] {
            for (name, count) in theirs {
                bump(mine, name, *count);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::{RepairOptions, repair};

    #[test]
    fn counts_rungs_outcomes_and_changes() {
        let mut stats = Stats::new();
        let options = RepairOptions::new();
        stats.record(&repair("{\"a\": 1}", &options));
        stats.record(&repair("```json\n{'a': 1,}\n```", &options));
        stats.record(&repair("{\"a\": [1, 2", &options));
        stats.record(&repair("no json here", &options));
        assert_eq!(stats.total, 4);
        assert_eq!(stats.outcomes["repaired"], 2);
        assert_eq!(stats.outcomes["truncated"], 1);
        assert_eq!(stats.outcomes["prose"], 1);
        assert_eq!(stats.rungs["none"], 1);
        assert_eq!(stats.rungs["quotes"], 1);
        assert_eq!(stats.changed["fence"], 1);
        assert_eq!(stats.changed["trailing_comma"], 1);

        let mut merged = Stats::new();
        merged.merge(&stats);
        merged.merge(&stats);
        assert_eq!(merged.total, 8);
        assert_eq!(merged.outcomes["repaired"], 4);
    }
}
