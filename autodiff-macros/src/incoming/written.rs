//! What is surely written at a point of the body (`Written`): the facts the walk of `incoming.rs` keeps,
//! their meet where paths join, and their loss where names change.

use std::collections::BTreeSet;

/// What is surely written at a point of the body.
#[derive(Clone, Default, Debug, PartialEq)]
pub(super) struct Written {
    pub(super) whole: bool,
    /// Elements at integer literals.
    pub(super) at: BTreeSet<u64>,
    /// Elements at index expressions (as tokens), with the names they use.
    pub(super) exprs: Vec<(String, BTreeSet<String>)>,
    /// `(i, a)`: every element from `a` up to, not including, `i` (in a loop `for i in a..b` that writes
    /// `out[i]` in each iteration).
    pub(super) below: Vec<(String, u64)>,
}

impl Written {
    /// What holds on both paths.
    pub(super) fn meet(&self, other: &Written) -> Written {
        Written {
            whole: self.whole && other.whole,
            at: self.at.intersection(&other.at).copied().collect(),
            exprs: (self.exprs.iter())
                .filter(|e| other.exprs.contains(e))
                .cloned()
                .collect(),
            below: (self.below.iter())
                .filter(|b| other.below.contains(b))
                .cloned()
                .collect(),
        }
    }

    /// Forgets the facts about index expressions that use one of `names`, whose values may have changed.
    pub(super) fn forget(&mut self, names: &BTreeSet<String>) {
        self.exprs.retain(|(_, uses)| uses.is_disjoint(names));
        self.below.retain(|(index, _)| !names.contains(index));
    }

    /// Only what holds whatever the names hold: the whole buffer and elements at constants.
    pub(super) fn constant(&self) -> Written {
        Written {
            whole: self.whole,
            at: self.at.clone(),
            ..Written::default()
        }
    }
}
