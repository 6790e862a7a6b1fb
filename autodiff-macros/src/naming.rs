//! The one place generated names are made.
//!
//! Every local of the generated code is an identifier with `Span::mixed_site()`, so it can neither capture
//! nor be captured by the user's names (a UI test proves the user cannot name them). Values keep the name the
//! user gave them where there is one (`z`, then `z_1` for the next version), temporaries are `__v0`, `__v1`,
//! the adjoint of `z` is `__d_z` and its tangent `__dot_z`. A raw identifier gives names without its `r#`
//! (`r#in` gives `__d_in`), and keeps it only where the name is a keyword itself.

use crate::hash::FastMap;
use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};
use std::collections::hash_map::Entry;

/// Hands out names that are unique within one generated function.
#[derive(Clone, Default)]
pub(crate) struct Namer {
    /// The names taken, each with the suffix `fresh` tries first when asked for it as a base: every name
    /// with a smaller one was taken then, and names are never given back. One map, so that the common
    /// case, a base not taken yet, costs one lookup.
    used: FastMap<String, usize>,
    temporaries: usize,
}

impl Namer {
    /// A namer that will not hand out any of `reserved` (the parameters' names).
    pub(crate) fn new(reserved: impl IntoIterator<Item = String>) -> Namer {
        Namer {
            used: reserved.into_iter().map(|r| (without_raw(&r), 1)).collect(),
            temporaries: 0,
        }
    }

    /// `base`, or `base_1`, `base_2`, .. if it is taken.
    pub(crate) fn fresh(&mut self, base: &str) -> Ident {
        let (base, mut n) = match self.used.entry(without_raw(base)) {
            Entry::Vacant(vacant) => {
                let ident = unraw_local(vacant.key());
                vacant.insert(1);
                return ident;
            }
            Entry::Occupied(taken) => (taken.key().clone(), *taken.get()),
        };
        let mut name = format!("{base}_{n}");
        while self.used.contains_key(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        if let Some(next) = self.used.get_mut(&base) {
            *next = n + 1;
        }
        let ident = unraw_local(&name);
        self.used.insert(name, 1);
        ident
    }

    /// A temporary with no user name: `__v0`, `__v1`, ..
    pub(crate) fn temporary(&mut self) -> Ident {
        loop {
            let name = format!("__v{}", self.temporaries);
            self.temporaries += 1;
            if let Entry::Vacant(vacant) = self.used.entry(name) {
                let ident = Ident::new(vacant.key(), Span::mixed_site());
                vacant.insert(1);
                return ident;
            }
        }
    }
}

/// The base of the adjoint name of a value called `primal`: `z` gives `__d_z`, `__v3` gives `__d_v3`.
pub(crate) fn adjoint_base(primal: &str) -> String {
    format!("__d_{}", without_raw(primal).trim_start_matches('_'))
}

/// The base of the tangent name of a value called `primal`: `z` gives `__dot_z`.
pub(crate) fn tangent_base(primal: &str) -> String {
    format!("__dot_{}", without_raw(primal).trim_start_matches('_'))
}

/// Does `tokens` name one of `idents`, also inside brackets and parentheses (`&[f32]`, `(f32, f64)`,
/// `[Vec<f32>]`, whose inner tokens the top level does not show)?
pub(crate) fn names_any(tokens: TokenStream, idents: &[&str]) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Group(g) => names_any(g.stream(), idents),
        proc_macro2::TokenTree::Ident(i) => idents.iter().any(|name| i == name),
        _ => false,
    })
}

/// A local of the generated code called `name`, which may be made from the user's names: a raw
/// identifier's `r#` is dropped inside it (`__lifted_r#in` is `__lifted_in`); a name that is a keyword
/// is raw (the value of the user's `r#in` is `r#in`), or gets a `_` where no raw identifier can be (`self`).
pub(crate) fn local(name: &str) -> Ident {
    unraw_local(&without_raw(name))
}

/// `local` of a name that holds no `r#`.
fn unraw_local(name: &str) -> Ident {
    if !is_keyword(name) {
        return Ident::new(name, Span::mixed_site());
    }
    match name {
        "self" | "Self" | "super" | "crate" | "_" => {
            Ident::new(&format!("{name}_"), Span::mixed_site())
        }
        _ => Ident::new_raw(name, Span::mixed_site()),
    }
}

/// The words that `syn` refuses as an identifier (its `accept_as_ident`): keywords, reserved words and `_`,
/// sorted for a binary search.
const KEYWORDS: &[&str] = &[
    "Self", "_", "abstract", "as", "async", "await", "become", "box", "break", "const", "continue",
    "crate", "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Is `name` a keyword, which a plain identifier cannot be? A list, not `syn::parse_str::<Ident>`: inside
/// the compiler, parsing a string lexes it as a source file of its own, which cost more than the rest of
/// making a name.
fn is_keyword(name: &str) -> bool {
    // Every keyword is at most eight lowercase letters but `Self` and `_`: most names (a generated one
    // begins with `__`) are told apart without the search.
    let lowercase = name.len() <= 8 && name.bytes().all(|b| b.is_ascii_lowercase());
    (lowercase || name == "Self" || name == "_") && KEYWORDS.binary_search(&name).is_ok()
}

/// Are `tokens` one name, as `syn::parse2::<Ident>` reads them (an identifier that is not a keyword, maybe in
/// a group without delimiters)? Read from the top-level tokens: `syn` would first copy every nested group out
/// of the compiler, which for an expression costs more than making it.
pub(crate) fn is_name(tokens: &TokenStream) -> bool {
    let mut trees = tokens.clone().into_iter();
    match (trees.next(), trees.next()) {
        (Some(TokenTree::Ident(ident)), None) => !is_keyword(&ident.to_string()),
        (Some(TokenTree::Group(group)), None) => {
            group.delimiter() == Delimiter::None && is_name(&group.stream())
        }
        _ => false,
    }
}

/// `name` without the `r#` of the raw identifiers it was made from: no identifier holds a `#`.
fn without_raw(name: &str) -> String {
    match name.contains('#') {
        true => name.replace("r#", ""),
        false => name.to_string(),
    }
}

/// The names `fixed` makes, which values never get.
pub(crate) const FIXED: &[&str] = &["d_ret", "tangent", "tangents", "value", "gradient", "grad"];

/// The parameter of `f_vjp` that takes the cotangent of the output parameter `output`: `d_out` for `out`;
/// `d_ret_out` for an output named `ret`, whose `d_ret` would be the cotangent of the returned value (also
/// generated, so the same identifier).
pub(crate) fn output_cotangent(output: &Ident) -> Ident {
    let name = format!("d_{}", unraw(output));
    let name = if FIXED.contains(&name.as_str()) {
        format!("{name}_out")
    } else {
        name
    };
    Ident::new(&name, Span::mixed_site())
}

/// The parameter of `f_jvp` that receives the tangent of the output parameter `output`: `d_out` too.
pub(crate) fn output_tangent(output: &Ident) -> Ident {
    output_cotangent(output)
}

/// The generic copy of the function `name` written for `f64` that `order = K` differentiates: `__f_generic`
/// for `f`, made by `order = K` or, where it surely compiles, by `#[differentiable]` alone (`shadow.rs`). Callers
/// reach it through `f`'s companion type (`companion::GenericCopy`); a generic function is its own.
pub(crate) fn generic_copy(name: &Ident) -> Ident {
    quote::format_ident!("__{}_generic", unraw(name), span = name.span())
}

/// The hidden function holding the body of the `#[custom_gradient]` function `name` as written (returning
/// its value and its closure), which the function and its generated items call: `__f_custom_body` for `f`.
pub(crate) fn custom_body(name: &Ident) -> Ident {
    quote::format_ident!("__{}_custom_body", unraw(name), span = name.span())
}

/// In the generic copy of the custom function `function`, the name under which the copy finds the
/// companion of its callee `name` (`__private::copy_by_name!`, `custom_copy.rs`), that of the module holding
/// the stand-in used where `name` has none, and that of the marker whose compile error the stand-in is:
/// `__copy_of_g`, `__no_copy_of_g`, `__g_without_copy_in_f`. For a callee written with a path
/// (`shapes::square`), `name` is its segments joined by `__` (`callee_label`).
pub(crate) fn copy_lookup(name: &Ident, function: &Ident) -> (Ident, Ident, Ident) {
    let (name, function) = (unraw(name), unraw(function));
    (
        quote::format_ident!("__copy_of_{}", name),
        quote::format_ident!("__no_copy_of_{}", name),
        quote::format_ident!("__{}_without_copy_in_{}", name, function),
    )
}

/// In the generic copy of a custom function, the trait through which `&Site` gives the companion that a
/// call of the callee `name` by a path finds where no `#[gradient_of(path)]` registration in scope does
/// (`__private::copy_by_name!`): `__registered_copy_of_shapes__square`.
pub(crate) fn copy_lookup_registered(name: &Ident) -> Ident {
    quote::format_ident!("__registered_copy_of_{}", unraw(name))
}

/// A name for the callee at `path` in generated names: its segments joined by `__` (`shapes__square`, a
/// leading `self` dropped), spanned on its last segment.
pub(crate) fn callee_label(path: &syn::Path) -> Ident {
    let mut segments: Vec<String> = path.segments.iter().map(|s| unraw(&s.ident)).collect();
    if segments.len() > 1 && segments[0] == "self" {
        segments.remove(0);
    }
    let span = path
        .segments
        .last()
        .map_or_else(Span::call_site, |s| s.ident.span());
    Ident::new(&segments.join("__"), span)
}

/// In a generic `impl` (`impl<T: Float> S<T>`), the copy of the associated function `name` over a float type
/// `__S` of its own, which the `impl`'s own hidden functions call on `Dual<T>` while `Self` stays `S<T>`
/// (`Self::g(x)` → `Self::__g_over(x)`, `CallsOfCopies`): `__g_over` for `g`. A caller outside the `impl`
/// calls `S::__g_generic` (by the type's name, `S::g(x)`, or `S::<f64>::g(x)`), which there is `g` itself
/// at the caller's float type (`expand::Generated::by_name_copy`), so that `S`'s `T` is inferred from the
/// arguments.
pub(crate) fn impl_generic_copy(name: &Ident) -> Ident {
    quote::format_ident!("__{}_over", unraw(name), span = name.span())
}

/// The hidden function of the function `name` of parameter structs at `order = K` that callers reach with
/// a struct passed on whole (`struct_whole.rs`): `__f_whole` for `f`, spanned on `name` so that a call
/// written with it finds it.
pub(crate) fn whole_function(name: &Ident) -> Ident {
    quote::format_ident!("__{}_whole", unraw(name), span = name.span())
}

/// The float type of the parameter structs of a hidden function `__f_whole` of a function generic over
/// its float type `T` (`struct_whole.rs`): `__P`, a type parameter of its own, so that a struct stays
/// `Outer<__P>` where `order = K` runs the hidden function on `Dual<T>`.
pub(crate) fn primal_float() -> Ident {
    Ident::new("__P", Span::call_site())
}

/// The function that callers at `order = K` call in place of `name` when they pass it a field of a
/// parameter struct on whole (`g(&p.w)`, which may hold a struct or floats: `struct_whole.rs`), every
/// argument a pair: `__g_pairs` for `g`, spanned on `name`.
pub(crate) fn pairs_function(name: &Ident) -> Ident {
    quote::format_ident!("__{}_pairs", unraw(name), span = name.span())
}

/// The function whose hidden function of pairs is `name` (`g` for `__g_pairs`), if `name` is one: what an
/// error about it names.
pub(crate) fn pairs_function_of(name: &Ident) -> Option<String> {
    unraw(name)
        .strip_prefix("__")?
        .strip_suffix("_pairs")
        .filter(|base| !base.is_empty())
        .map(str::to_string)
}

/// The function whose hidden function over its structs' values views is `name` (`f` for `__f_whole`), if
/// `name` is one: what an error about it names.
pub(crate) fn whole_function_of(name: &Ident) -> Option<String> {
    unraw(name)
        .strip_prefix("__")?
        .strip_suffix("_whole")
        .filter(|base| !base.is_empty())
        .map(str::to_string)
}

/// `__f_found` for the method `f`: the marker that the companion functions of a method with derivatives
/// include, which the check at a call of a method with a differentiated argument asks for
/// (`companion::method_or_fallback`, `__private::require_method_derivative`).
pub(crate) fn method_derivative_marker(name: &Ident) -> Ident {
    let mut base = unraw(name);
    // `__f_generic`, `__f_over`, `__f_whole`, `__f_pairs`, `____f_whole_generic`: `f`'s own.
    while let Some(inner) = base
        .strip_prefix("__")
        .and_then(|b| {
            ["_generic", "_over", "_whole", "_pairs"]
                .iter()
                .find_map(|s| b.strip_suffix(s))
        })
        .filter(|b| !b.is_empty())
    {
        base = inner.to_string();
    }
    quote::format_ident!("__{}_found", base, span = name.span())
}

/// `__f_found_by_name` for the method `f`: the marker of `method_derivative_marker` for a call by the
/// type's name (`S::f(x)`), which takes a float literal (`fn __f_found_by_name(_: T)`) so that the `T` of
/// a generic `impl`, which the path leaves open, is determined.
pub(crate) fn method_derivative_marker_by_name(name: &Ident) -> Ident {
    let marker = method_derivative_marker(name);
    quote::format_ident!("{}_by_name", marker, span = name.span())
}

/// An identifier's name without the `r#` of a raw identifier, to build other names from.
pub(crate) fn unraw(ident: &Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map_or(name.clone(), str::to_owned)
}

/// A name of the generated code that is not a value's: `d_ret`, `tangent`, partials.
pub(crate) fn fixed(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// `__f_vjp` for the method `f` and the item `vjp`: what a method has in place of a companion type
/// (spanned on `f`, so that the caller's generated code finds it).
pub(crate) fn method_companion(name: &Ident, item: &str) -> Ident {
    quote::format_ident!("__{}_{}", name, item, span = name.span())
}

/// `__f_copied` for the method `f`: the marker that the fallback of a method without a generic copy
/// emits, which the check at an `order = K` caller's call asks for (`__private::require_method_copy`).
pub(crate) fn method_copy_marker(name: &Ident) -> Ident {
    quote::format_ident!("__{}_copied", unraw(name), span = name.span())
}

/// `__f_copied_by_name` for the method `f`: the marker that the check at a call by the type's name
/// (`S::f(x)`, `S::<f64>::f(x)`) asks for, with a float literal for argument, which in a generic `impl`
/// (`fn __f_copied_by_name(_: T)`) determines its `T` where the type's name leaves it open.
pub(crate) fn method_copy_marker_by_name(name: &Ident) -> Ident {
    quote::format_ident!("__{}_copied_by_name", unraw(name), span = name.span())
}

/// Whether a call's `path` names an associated function, `Self::f` or `Type::f` (its second-to-last segment
/// is `Self` or capitalised, as types are): its derivatives are associated functions beside it
/// (`Self::__f_vjp`), not a companion type, and no registration by path reaches it.
pub(crate) fn is_associated_call(path: &syn::Path) -> bool {
    let segments = &path.segments;
    segments.len() >= 2
        && segments.iter().nth(segments.len() - 2).is_some_and(|s| {
            s.ident == "Self" || s.ident.to_string().starts_with(char::is_uppercase)
        })
}

/// `g` of a call `Self::g(..)` of an associated function.
pub(crate) fn self_associated_call(path: &syn::Path) -> Option<&Ident> {
    let segments = &path.segments;
    (path.leading_colon.is_none()
        && segments.len() == 2
        && segments[0].ident == "Self"
        && segments.iter().all(|s| s.arguments.is_none()))
    .then(|| &segments[1].ident)
}

/// `Self::g(..)` → `Self::__g_over(..)`: the copy of `g` over its own float type (`impl_generic_copy`), which a
/// hidden function over the renamed float type `__T` (`struct_higher.rs`) or the copy of an associated
/// function of a generic `impl` (`expand::impl_generic_copy`) calls.
pub(crate) struct CallsOfCopies;

impl syn::visit_mut::VisitMut for CallsOfCopies {
    fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
        if let syn::Expr::Path(p) = &mut *call.func {
            if let Some(g) = self_associated_call(&p.path) {
                let copy = impl_generic_copy(g);
                p.path = syn::parse_quote!(Self::#copy);
            }
        }
        syn::visit_mut::visit_expr_call_mut(self, call);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The name under which `#[gradient_of(path)]` registers the gradient of a function by its path, and
/// under which a call written with that path looks for it: `libm::erf` gives
/// `__autodiff_gradient_of__libm__erf` (a leading `::` or `self::` dropped). `None` for a one-segment path,
/// which finds the registration by the function's name.
pub(crate) fn registered_path(path: &syn::Path) -> Option<Ident> {
    let mut segments: Vec<String> = path.segments.iter().map(|s| unraw(&s.ident)).collect();
    if segments.first().is_some_and(|s| s == "self") {
        segments.remove(0);
    }
    (segments.len() >= 2).then(|| {
        let span = path
            .segments
            .last()
            .map_or_else(Span::call_site, |s| s.ident.span());
        Ident::new(
            &format!("__autodiff_gradient_of__{}", segments.join("__")),
            span,
        )
    })
}

/// The matrix parameter `m` itself, in generated code that reads `m` flattened (`signature::deref_scalars`).
pub(crate) fn matrix(param: &Ident) -> Ident {
    Ident::new(&format!("__matrix_{param}"), Span::mixed_site())
}

/// The key of a struct field's name in `__private::FieldType<KEY>` (64-bit FNV-1a, written as a `u64`
/// literal): the derive and `order = K` on a function of the struct compute it alike.
pub(crate) fn field_key(name: &str) -> syn::LitInt {
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    syn::LitInt::new(&format!("{hash}u64"), Span::call_site())
}

/// The names of `path`'s segments as written (`r#` kept): `["crate", "shapes", "square"]` for
/// `crate::shapes::square`.
pub(crate) fn path_names(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keywords_are_the_words_syn_refuses_as_identifiers() {
        assert!(KEYWORDS.windows(2).all(|w| w[0] < w[1]), "sorted");
        for word in KEYWORDS {
            assert!(is_keyword(word));
            assert!(syn::parse_str::<Ident>(word).is_err(), "{word}");
        }
        for word in ["x", "gen", "union", "default", "raw", "__v0", "r", "S"] {
            assert!(!is_keyword(word));
            assert!(syn::parse_str::<Ident>(word).is_ok(), "{word}");
        }
    }

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

    #[test]
    fn a_base_taken_by_another_name_is_skipped_after_its_suffixes_were_handed_out() {
        let mut namer = Namer::new(["s_2".to_string()]);
        assert_eq!(namer.fresh("s"), "s");
        assert_eq!(namer.fresh("s"), "s_1");
        assert_eq!(namer.fresh("s"), "s_3");
        assert_eq!(namer.fresh("s_3"), "s_3_1");
        assert_eq!(namer.fresh("s"), "s_4");
    }

    #[test]
    fn a_name_is_what_syn_parses_as_an_identifier() {
        let none = proc_macro2::Group::new(Delimiter::None, quote::quote!(d));
        let cases = [
            quote::quote!(d),
            quote::quote!(r#in),
            quote::quote!(self),
            quote::quote!(_),
            quote::quote!(d.0),
            quote::quote!((d)),
            quote::quote!(-d),
            quote::quote!(#none),
            TokenStream::new(),
        ];
        for tokens in cases {
            assert_eq!(
                is_name(&tokens),
                syn::parse2::<Ident>(tokens.clone()).is_ok(),
                "{tokens}"
            );
        }
    }

    #[test]
    fn raw_identifiers_give_names_without_their_prefix() {
        let mut namer = Namer::new(["r#in".to_string()]);
        assert_eq!(namer.fresh("r#in"), "in_1");
        assert_eq!(namer.fresh("r#match").to_string(), "r#match");
        assert_eq!(namer.fresh(&adjoint_base("r#in")), "__d_in");
        assert_eq!(tangent_base("r#type"), "__dot_type");
    }

    #[test]
    fn field_keys_are_fnv1a_of_the_name() {
        // FNV-1a 64 of the empty string is its offset basis; of "a", the published value.
        assert_eq!(field_key("").to_string(), "14695981039346656037u64");
        assert_eq!(field_key("a").to_string(), "12638187200555641996u64");
        assert_ne!(field_key("w1").to_string(), field_key("b1").to_string());
    }
}
