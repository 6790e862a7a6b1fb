//! The one place generated names are made.
//!
//! Every local of the generated code is an identifier with `Span::mixed_site()`, so it can neither capture
//! nor be captured by the user's names (a UI test proves the user cannot name them). Values keep the name the
//! user gave them where there is one (`z`, then `z_1` for the next version), temporaries are `__v0`, `__v1`,
//! the adjoint of `z` is `__d_z` and its tangent `__dot_z`.

use proc_macro2::{Ident, Span};
use std::collections::HashSet;

/// Hands out names that are unique within one generated function.
#[derive(Default)]
pub(crate) struct Namer {
    used: HashSet<String>,
    temporaries: usize,
}

impl Namer {
    /// A namer that will not hand out any of `reserved` (the parameters' names).
    pub(crate) fn new(reserved: impl IntoIterator<Item = String>) -> Namer {
        Namer {
            used: reserved.into_iter().collect(),
            temporaries: 0,
        }
    }

    /// `base`, or `base_1`, `base_2`, .. if it is taken.
    pub(crate) fn fresh(&mut self, base: &str) -> Ident {
        let mut name = base.to_string();
        let mut n = 0;
        while !self.used.insert(name.clone()) {
            n += 1;
            name = format!("{base}_{n}");
        }
        Ident::new(&name, Span::mixed_site())
    }

    /// A temporary with no user name: `__v0`, `__v1`, ..
    pub(crate) fn temporary(&mut self) -> Ident {
        loop {
            let name = format!("__v{}", self.temporaries);
            self.temporaries += 1;
            if self.used.insert(name.clone()) {
                return Ident::new(&name, Span::mixed_site());
            }
        }
    }
}

/// The base of the adjoint name of a value called `primal`: `z` gives `__d_z`, `__v3` gives `__d_v3`.
pub(crate) fn adjoint_base(primal: &str) -> String {
    format!("__d_{}", primal.trim_start_matches('_'))
}

/// The base of the tangent name of a value called `primal`: `z` gives `__dot_z`.
pub(crate) fn tangent_base(primal: &str) -> String {
    format!("__dot_{}", primal.trim_start_matches('_'))
}

/// The names `fixed` makes, which values never get.
pub(crate) const FIXED: &[&str] = &["d_ret", "tangent", "tangents", "value", "gradient"];

/// A name of the generated code that is not a value's: `d_ret`, `tangent`, partials.
pub(crate) fn fixed(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// The matrix parameter `m` itself, in generated code that reads `m` flattened (`signature::deref_scalars`).
pub(crate) fn matrix(param: &Ident) -> Ident {
    Ident::new(&format!("__matrix_{param}"), Span::mixed_site())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_readable() {
        let mut namer = Namer::new(["x".to_string()]);
        assert_eq!(namer.fresh("x"), "x_1");
        assert_eq!(namer.fresh("z"), "z");
        assert_eq!(namer.fresh("z"), "z_1");
        assert_eq!(namer.temporary(), "__v0");
        assert_eq!(namer.fresh(&adjoint_base("z")), "__d_z");
        assert_eq!(adjoint_base("__v3"), "__d_v3");
        assert_eq!(tangent_base("y_1"), "__dot_y_1");
    }
}
