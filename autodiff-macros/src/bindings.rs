//! The names a pattern binds, for the passes that read the user's syntax before lowering (scopes,
//! shadowing, what a `let` or a closure parameter introduces).

use syn::visit::Visit;
use syn::Pat;

/// Every name `pat` binds, in source order, at any depth: `a`, `(a, (b, _))`, `c: f64`, `Point { x, y }`,
/// `ref mut d`, `e @ 1..=3` (both `e` and nothing of the range).
pub(crate) fn bound_names(pat: &Pat) -> Vec<String> {
    struct Names(Vec<String>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut names = Names(Vec::new());
    names.visit_pat(pat);
    names.0
}

/// Every name a pattern of `block` binds (a `let`, a closure's or a `for`'s pattern, a `match` arm), outside
/// the `fn` items nested in it, which have their own parameters.
pub(crate) fn bound_in_block(block: &syn::Block) -> std::collections::BTreeSet<String> {
    struct Names(std::collections::BTreeSet<String>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_pat(&mut self, pat: &'ast Pat) {
            self.0.extend(bound_names(pat));
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut names = Names(Default::default());
    names.visit_block(block);
    names.0
}

// Input:  Act::LeakyRelu(slope)      Act::Scaled { k, off: _, .. }      Act::Tanh(..)
// Output: Some([slope])              Some([k])                          Some([])
/// The names a `match` arm's variant pattern binds to its fields, where each field is bound by value to a
/// name (`slope`, `off: o`) or left (`_`, `..`): constants of the arm, since the scrutinee of a `match` is
/// never active. `None` for any other pattern (nested patterns, `ref`, `mut`, `n @ ..`, a literal).
pub(crate) fn variant_fields(pat: &Pat) -> Option<Vec<syn::Ident>> {
    fn field(pat: &Pat, names: &mut Vec<syn::Ident>) -> bool {
        match pat {
            Pat::Wild(_) | Pat::Rest(_) => true,
            Pat::Ident(p) => {
                let plain = p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none();
                let lowercase = !p.ident.to_string().starts_with(char::is_uppercase);
                names.push(p.ident.clone());
                plain && lowercase
            }
            _ => false,
        }
    }
    let mut names = Vec::new();
    let all = match pat {
        Pat::TupleStruct(t) => t.elems.iter().all(|p| field(p, &mut names)),
        Pat::Struct(s) => s.fields.iter().all(|f| field(&f.pat, &mut names)),
        _ => false,
    };
    all.then_some(names)
}

#[cfg(test)]
mod tests {
    use super::{bound_names, variant_fields};
    use syn::parse::Parser;

    fn names(pat: &str) -> Vec<String> {
        let pat = Parser::parse_str(syn::Pat::parse_single, pat).expect("a pattern");
        bound_names(&pat)
    }

    #[test]
    fn every_name_at_any_depth_in_order() {
        assert_eq!(names("a"), ["a"]);
        assert_eq!(names("(a, (b, _))"), ["a", "b"]);
        assert_eq!(names("Point { x, y: (u, v) }"), ["x", "u", "v"]);
        assert_eq!(names("[first, .., last]"), ["first", "last"]);
        assert_eq!(names("e @ 1..=3"), ["e"]);
        assert_eq!(names("ref mut d"), ["d"]);
        assert!(names("(_, 0, ..)").is_empty());
    }

    fn fields(pat: &str) -> Option<Vec<String>> {
        let pat = Parser::parse_str(syn::Pat::parse_single, pat).expect("a pattern");
        variant_fields(&pat).map(|v| v.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn the_fields_a_variant_pattern_binds() {
        assert_eq!(fields("Act::LeakyRelu(slope)"), Some(vec!["slope".into()]));
        assert_eq!(
            fields("Act::Scaled { k, off: o, .. }"),
            Some(vec!["k".into(), "o".into()])
        );
        assert_eq!(fields("Act::Pair(_, b, ..)"), Some(vec!["b".into()]));
        assert_eq!(fields("Act::Tanh(..)"), Some(vec![]));
        assert_eq!(fields("Act::Scaled { k: _ }"), Some(vec![]));
        // Nested patterns, `ref`, `mut`, bindings with subpatterns and literals are not.
        assert_eq!(fields("Some(Act::Tanh(s))"), None);
        assert_eq!(fields("Act::LeakyRelu(ref s)"), None);
        assert_eq!(fields("Act::LeakyRelu(mut s)"), None);
        assert_eq!(fields("Act::LeakyRelu(s @ _)"), None);
        assert_eq!(fields("Act::LeakyRelu(0.5)"), None);
        assert_eq!(fields("Act::Inner(Mode)"), None);
        assert_eq!(fields("(a, b)"), None);
    }
}
