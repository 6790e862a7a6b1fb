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
    /// `(i, e)`: every element above `i` up to, not including, `e` (in a loop `for i in (a..e).rev()` that
    /// writes `out[i]` in each iteration).
    pub(super) above: Vec<(String, Bound)>,
    /// `(a, e)`: every element from `a` up to, not including, `e` (a sub-slice filled or copied into, a
    /// loop over `a..e` that wrote each of its elements).
    pub(super) spans: Vec<(Bound, Bound)>,
    /// `(n, b)`: the name `n`, bound by a plain `let`, stands for the bound `b`.
    pub(super) aliases: Vec<(String, Bound)>,
}

/// A bound of a run of elements: an integer literal, or an index expression (as tokens) with the names it
/// uses (`n`, `k + 1`, `x.len()`; the output's own `len()` uses none, a slice's length never changes).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Bound {
    Lit(u64),
    Expr(String, BTreeSet<String>),
}

impl Bound {
    fn uses(&self) -> Option<&BTreeSet<String>> {
        match self {
            Bound::Lit(_) => None,
            Bound::Expr(_, uses) => Some(uses),
        }
    }

    fn keeps(&self, names: &BTreeSet<String>) -> bool {
        self.uses().is_none_or(|uses| uses.is_disjoint(names))
    }

    /// Is `self`, as a start, at or below `other`?
    pub(super) fn at_or_below(&self, other: &Bound) -> bool {
        match (self, other) {
            (Bound::Lit(a), Bound::Lit(b)) => a <= b,
            (a, b) => a == b,
        }
    }
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
            above: (self.above.iter())
                .filter(|b| other.above.contains(b))
                .cloned()
                .collect(),
            spans: (self.spans.iter())
                .filter(|b| other.spans.contains(b))
                .cloned()
                .collect(),
            aliases: (self.aliases.iter())
                .filter(|b| other.aliases.contains(b))
                .cloned()
                .collect(),
        }
    }

    /// Forgets the facts about index expressions that use one of `names`, whose values may have changed.
    pub(super) fn forget(&mut self, names: &BTreeSet<String>) {
        self.exprs.retain(|(_, uses)| uses.is_disjoint(names));
        self.below.retain(|(index, _)| !names.contains(index));
        self.above
            .retain(|(index, end)| !names.contains(index) && end.keeps(names));
        self.spans
            .retain(|(start, end)| start.keeps(names) && end.keeps(names));
        self.aliases
            .retain(|(name, b)| !names.contains(name) && b.keeps(names));
    }

    /// Only what holds whatever the names hold: the whole buffer, elements at constants, runs between
    /// constants.
    pub(super) fn constant(&self) -> Written {
        Written {
            whole: self.whole,
            at: self.at.clone(),
            spans: (self.spans.iter())
                .filter(|(a, e)| {
                    a.uses().is_none_or(BTreeSet::is_empty)
                        && e.uses().is_none_or(BTreeSet::is_empty)
                })
                .cloned()
                .collect(),
            ..Written::default()
        }
    }

    /// Is the element at the literal `k` written (by itself or in a run between literals)?
    pub(super) fn has(&self, k: u64) -> bool {
        self.whole
            || self.at.contains(&k)
            || (self.spans.iter())
                .any(|(a, e)| matches!((a, e), (Bound::Lit(a), Bound::Lit(e)) if *a <= k && k < *e))
    }

    /// Is every element from `start` up to `end` written, by a run that starts at or below `start` and
    /// ends at `end`, or by elements at literals?
    pub(super) fn covers(&self, start: &Bound, end: &Bound) -> bool {
        if self.whole {
            return true;
        }
        if let (Bound::Lit(a), Bound::Lit(e)) = (start, end) {
            if e.saturating_sub(*a) <= 4096 && (*a..*e).all(|k| self.has(k)) {
                return true;
            }
        }
        (self.spans.iter()).any(|(a, e)| {
            a.at_or_below(start)
                && match (e, end) {
                    (Bound::Lit(e), Bound::Lit(end)) => end <= e,
                    (e, end) => e == end,
                }
        })
    }

    /// Marks the buffer whole when runs and elements chain from 0 to `len` (the output's `len()` as a
    /// bound, or its fixed length).
    pub(super) fn chain(&mut self, len: &Bound, fixed: Option<u64>) {
        let mut at = Bound::Lit(0);
        for _ in 0..=self.spans.len() + self.at.len() {
            if at == *len || matches!((&at, fixed), (Bound::Lit(k), Some(n)) if *k >= n) {
                self.whole = true;
                return;
            }
            let next = match &at {
                Bound::Lit(k) if self.at.contains(k) => k.checked_add(1).map(Bound::Lit),
                _ => (self.spans.iter())
                    .filter(|(a, e)| a.at_or_below(&at) && !e.at_or_below(&at))
                    .map(|(_, e)| e.clone())
                    .next(),
            };
            match next {
                Some(next) => at = next,
                None => return,
            }
        }
    }
}
