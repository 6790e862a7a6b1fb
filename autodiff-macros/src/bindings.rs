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

#[cfg(test)]
mod tests {
    use super::bound_names;
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
}
