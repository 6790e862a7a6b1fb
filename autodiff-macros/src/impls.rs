//! `#[differentiable]` on an `impl` block: the derivatives of a trait's methods.
//!
//! The `impl` of a trait holds the trait's members and nothing else, so the items `#[differentiable]` emits
//! beside a method (`energy_grad`, `energy_vjp`, the hidden `__energy_vjp` its callers call, ..) cannot
//! stand there (rustc's E0407). An attribute on a method emits only items of the block it stands in; the
//! attribute on the `impl` block sees the whole block, and puts each differentiable method's items in an
//! inherent `impl` of the same type, with the same generics and `where` clause, beside it:
//!
//! ```text
//! Input:  #[differentiable]
//!         impl<T: Float> Energy for Model<T> where T: Copy {
//!             type Scalar = T;
//!             #[differentiable(order = 2)]
//!             fn energy(&self, x: Self::Scalar) -> T { .. }
//!             fn name(&self) -> String { .. }
//!         }
//! Output: impl<T: Float> Energy for Model<T> where T: Copy {
//!             type Scalar = T;
//!             fn energy(&self, x: Self::Scalar) -> T { .. }
//!             fn name(&self) -> String { .. }
//!         }
//!         impl<T: Float> Model<T> where T: Copy {
//!             #[differentiable(order = 2, __of_trait)]
//!             pub fn energy(&self, x: T) -> T { .. }   // expands to the generated items alone
//!         }
//! ```
//!
//! The copy names the trait's associated types by their definitions (`Self::Scalar` is `T`), which an
//! inherent `impl` does not have. The generated items are `pub`, as a trait's methods are wherever its
//! type is (`spring.energy_grad(x)`). On an inherent `impl` the attribute changes nothing: its methods'
//! own attributes emit their items there.
//!
//! The block's attribute finds its methods' `#[differentiable]` by name: one imported under another name
//! (`use autodiff::differentiable as ad;`, `#[ad]`) it cannot tell from another attribute. On an inherent
//! `impl` that changes nothing (`#[ad]` expands where it stands); on a trait's `impl`, a single-segment
//! attribute not known otherwise is an error at it where the block has no method marked by name, and the
//! method's own expansion says the same where it has (`context::attribute_written`).
//!
//! Two traits' `impl`s for one type with a `#[differentiable]` method of the same name would both emit its
//! items in the type's inherent `impl`s (E0592 at each): the second in the file is an error at the method,
//! which names the first (`context::trait_impls_before`), and emits its other methods' items.
//!
//! Rust allows an inherent `impl` only of a type defined in the crate, whose parameters all appear in it.
//! A self type that surely is not one (`f64`, `&Spring`, `Vec<f64>`, a tuple, a type parameter) and a
//! parameter of the trait alone (`impl<T> Energy<T> for Spring`) are errors spanned on them, which say what
//! to write instead; a path to another crate's type the macro cannot tell from a local one, and rustc's
//! E0116 points at it.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use std::collections::HashMap;
use syn::visit_mut::VisitMut;
use syn::{Ident, ImplItem, Type};

use crate::context::TraitBlock;
use crate::errors::Errors;

/// Expands `#[differentiable(attr)]` on the `impl` block `block`.
pub(crate) fn expand(attr: TokenStream, mut block: syn::ItemImpl) -> TokenStream {
    let mut errors = Errors::default();
    if !attr.is_empty() {
        errors.spanned(
            &attr,
            "`#[differentiable]` on an `impl` block takes no arguments: write `order = K` and `wrt(..)` in \
             the `#[differentiable(..)]` of each method",
        );
    }
    let marked = block.items.iter().any(
        |item| matches!(item, ImplItem::Fn(method) if method.attrs.iter().any(is_differentiable)),
    );
    let renamed_method = block
        .items
        .iter()
        .enumerate()
        .find_map(|(i, item)| match item {
            ImplItem::Fn(method) => method
                .attrs
                .iter()
                .enumerate()
                .find_map(|(at, a)| Some((i, at, maybe_renamed(a)?))),
            _ => None,
        });
    match (marked, renamed_method) {
        // On an inherent `impl`, the block's attribute changes nothing: `#[ad]` expands where it stands.
        (false, Some(_)) if block.trait_.is_none() => {}
        // Taken off, so that it does not expand in the trait's `impl` to a second error.
        (false, Some((i, at, path))) => {
            if let ImplItem::Fn(method) = &mut block.items[i] {
                let attribute = method.attrs.remove(at);
                let place = "a method of a trait's `impl`";
                errors.spanned(attribute, renamed(&path, &method.sig.ident, place));
            }
        }
        (false, None) => errors.spanned(
            block.impl_token,
            "`#[differentiable]` on an `impl` block differentiates none of its methods by itself: write \
             `#[differentiable]` on each method to differentiate (and on the block too where it is a \
             trait's `impl`, whose methods' derivatives it puts in an inherent `impl` beside it)",
        ),
        (true, _) => {}
    }
    if block.trait_.is_none() || !marked {
        let errors = errors.finish().err();
        return quote!(#errors #block);
    }
    // `type Scalar = f64;`: what the copies write for `Self::Scalar`.
    let associated: HashMap<Ident, Type> = block
        .items
        .iter()
        .filter_map(|item| match item {
            ImplItem::Type(t) => Some((t.ident.clone(), t.ty.clone())),
            _ => None,
        })
        .collect();
    let (mut copies, mut names) = (Vec::new(), Vec::new());
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else { continue };
        let Some(at) = method.attrs.iter().position(is_differentiable) else {
            continue;
        };
        let attribute = method.attrs.remove(at);
        names.push(method.sig.ident.clone());
        copies.push(inherent_copy(method, &attribute, &associated));
    }
    if let Some(first) = names.first() {
        check_self_type(&block, first, &mut errors);
    }
    // A clash is an error of its own: the other methods' items are emitted all the same.
    let mut clash_errors = Errors::default();
    let clashes = check_clashes(&block, &names, &mut clash_errors);
    let clash_errors = clash_errors.finish().err();
    let copies: Vec<TokenStream> = copies
        .into_iter()
        .zip(&names)
        .filter(|(_, name)| !clashes.contains(name))
        .map(|(copy, _)| copy)
        .collect();
    if let Err(errors) = errors.finish() {
        // The trait's `impl` without the attributes: one error, not also one per generated item.
        return quote!(#errors #clash_errors #block);
    }
    let (impl_generics, _, where_clause) = block.generics.split_for_impl();
    let self_ty = &block.self_ty;
    // `#[cfg(..)]` on the trait's `impl` holds for the items beside it too.
    let cfgs = block.attrs.iter().filter(|a| a.path().is_ident("cfg"));
    quote! {
        #clash_errors
        #block
        #(#cfgs)*
        #[allow(private_interfaces, private_bounds)]
        impl #impl_generics #self_ty #where_clause {
            #(#copies)*
        }
    }
}

/// The error for `#[differentiable]` on `method` where the source shows it in a trait's block: the `impl`
/// of a trait whose block has no `#[differentiable]` of its own, or the trait's definition; spanned on the
/// method's attribute.
pub(crate) fn in_trait_block(method: &syn::ItemFn, block: &TraitBlock) -> TokenStream {
    let name = &method.sig.ident;
    let written = crate::context::attribute_written(name);
    let message = match block {
        // `#[ad]` of `use autodiff::differentiable as ad;`: the block's attribute did not see it.
        TraitBlock::Impl(header) if written.as_deref().is_some_and(|path| !is_ours(path)) => {
            let header = header.split_whitespace().collect::<Vec<_>>().join(" ");
            let path = written.unwrap_or_default();
            renamed(
                &path,
                name,
                &format!("a method of a trait's `impl` (`{header}`)"),
            )
        }
        TraitBlock::Impl(header) => {
            let header = header.split_whitespace().collect::<Vec<_>>().join(" ");
            format!(
                "`#[differentiable]` on `{name}`, a method of a trait's `impl` (`{header}`): the items it \
                 emits (`{name}_grad`, `{name}_vjp`, ..) are not members of the trait, so they go into an \
                 inherent `impl` of the same type beside it, which only an attribute on the block can emit. \
                 Write `#[differentiable]` on the block too: `#[differentiable] {header} {{ .. }}`"
            )
        }
        TraitBlock::Definition(header) => {
            let header = header.split_whitespace().collect::<Vec<_>>().join(" ");
            format!(
                "`#[differentiable]` on `{name}`, a method of a trait's definition (`{header}`), is not \
                 supported: an `impl` of the trait may replace the method's body, and derivatives of the \
                 body written here would not be its derivatives. Differentiate the method in each `impl` \
                 (`#[differentiable] impl Trait for Type {{ #[differentiable] fn {name}(..) }}`), or make its \
                 body a free `#[differentiable]` function that the provided method calls"
            )
        }
    };
    syn::Error::new(Span::call_site(), message).to_compile_error()
}

/// Is `attribute` this crate's `#[differentiable]` (`differentiable`, `autodiff::differentiable`)?
fn is_differentiable(attribute: &syn::Attribute) -> bool {
    let segments: Vec<String> = attribute
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    is_ours(&segments.join("::"))
}

/// Is `path` (`autodiff::differentiable`, no spaces, maybe with a leading `::`) a name of `#[differentiable]`
/// that the block's attribute recognises?
fn is_ours(path: &str) -> bool {
    matches!(
        path.trim_start_matches("::"),
        "differentiable" | "autodiff::differentiable"
    )
}

/// The attributes of the language and of this crate that are surely not `#[differentiable]` renamed.
const NOT_RENAMED: &[&str] = &[
    "allow",
    "warn",
    "deny",
    "forbid",
    "expect",
    "cfg",
    "cfg_attr",
    "doc",
    "inline",
    "cold",
    "must_use",
    "track_caller",
    "deprecated",
    "no_mangle",
    "export_name",
    "link_section",
    "target_feature",
    "test",
    "ignore",
    "should_panic",
    "custom_gradient",
    "gradient_of",
    "no_grad",
];

/// An attribute of one name not known otherwise (`#[ad]`): maybe `#[differentiable]` imported under
/// another name (`use autodiff::differentiable as ad;`), which the block's attribute cannot see.
fn maybe_renamed(attribute: &syn::Attribute) -> Option<String> {
    let ident = attribute.path().get_ident()?.to_string();
    (!NOT_RENAMED.contains(&ident.as_str()) && !is_ours(&ident)).then_some(ident)
}

/// The message for `#[path]` (not a name of `#[differentiable]` that the block's attribute knows) on the
/// method `name`, which stands in `place`.
fn renamed(path: &str, name: &Ident, place: &str) -> String {
    format!(
        "`#[{path}]` on `{name}`, {place}: `#[differentiable]` on the `impl` block finds the methods to \
         differentiate by their attribute's name, `differentiable` or `autodiff::differentiable`, and cannot \
         see that `{path}` may be it under another name (`use autodiff::differentiable as {path};`): write \
         `#[differentiable]` on the method"
    )
}

// Input:  #[differentiable(wrt(x))] fn energy(&self, x: Self::Scalar) -> f64 { .. }   (in the trait's `impl`)
// Output: #[differentiable(wrt(x), __of_trait)] pub fn energy(&self, x: f64) -> f64 { .. }
/// The copy of `method` (whose attribute `attribute` was taken off) for the inherent `impl`: the attribute
/// told that the function stands in the trait's `impl`, the items `pub`, the trait's associated types
/// written out.
fn inherent_copy(
    method: &syn::ImplItemFn,
    attribute: &syn::Attribute,
    associated: &HashMap<Ident, Type>,
) -> TokenStream {
    let mut copy = method.clone();
    copy.vis = syn::Visibility::Public(syn::Token![pub](method.sig.fn_token.span));
    copy.defaultness = None;
    AssociatedTypes(associated).visit_signature_mut(&mut copy.sig);
    AssociatedTypes(associated).visit_block_mut(&mut copy.block);
    let marker = Ident::new("__of_trait", Span::call_site());
    let path = attribute.path();
    let args = match &attribute.meta {
        syn::Meta::List(list) if !list.tokens.is_empty() => {
            let tokens = &list.tokens;
            let ends_with_comma = matches!(
                tokens.clone().into_iter().last(),
                Some(proc_macro2::TokenTree::Punct(p)) if p.as_char() == ','
            );
            match ends_with_comma {
                true => quote!(#tokens #marker),
                false => quote!(#tokens, #marker),
            }
        }
        _ => marker.to_token_stream(),
    };
    // Spanned as the user's attribute, so that the method's expansion has its call site.
    let (pound, bracket) = (attribute.pound_token, attribute.bracket_token);
    let mut attribute = TokenStream::new();
    pound.to_tokens(&mut attribute);
    bracket.surround(&mut attribute, |inner| {
        quote!(#path(#args)).to_tokens(inner)
    });
    quote!(#attribute #copy)
}

/// Writes `Self::Name`, for an associated type `Name` of the trait's `impl`, as its definition.
struct AssociatedTypes<'a>(&'a HashMap<Ident, Type>);

impl VisitMut for AssociatedTypes<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = ty {
            let segments = &p.path.segments;
            if p.qself.is_none()
                && p.path.leading_colon.is_none()
                && segments.len() == 2
                && segments[0].ident == "Self"
                && segments.iter().all(|s| s.arguments.is_none())
            {
                if let Some(definition) = self.0.get(&segments[1].ident) {
                    *ty = definition.clone();
                    return;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    // A nested item's `Self` is its own.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Records an error where the trait's `impl` cannot have an inherent `impl` beside it: its self type is
/// surely not a type of this crate, or a parameter of the `impl` appears in the trait alone.
fn check_self_type(block: &syn::ItemImpl, method: &Ident, errors: &mut Errors) {
    let self_ty = &block.self_ty;
    let trait_shown = block
        .trait_
        .as_ref()
        .map(|(_, path, _)| shown(path))
        .unwrap_or_default();
    let shown = shown(self_ty);
    if let Some(what) = not_local(self_ty, &block.generics) {
        errors.spanned(
            self_ty,
            format!(
                "`#[differentiable]` on a method of `impl {trait_shown} for {shown}` emits its derivatives \
                 (`{method}_grad`, `{method}_vjp`, ..) in an inherent `impl {shown}` beside the trait's `impl`, since they \
                 are not members of the trait; Rust allows an inherent `impl` only of a type defined in this \
                 crate, and `{shown}` is {what}. Write the method's body as a free `#[differentiable]` \
                 function (taking the value as a parameter), call it from the method, and call its `_grad`"
            ),
        );
        return;
    }
    let mentioned = idents(self_ty.to_token_stream());
    for param in &block.generics.params {
        let ident = match param {
            syn::GenericParam::Type(t) => &t.ident,
            syn::GenericParam::Const(c) => &c.ident,
            syn::GenericParam::Lifetime(_) => continue,
        };
        if !mentioned.contains(ident) {
            errors.spanned(
                ident,
                format!(
                    "`#[differentiable]` on a method of `impl {trait_shown} for {shown}` emits its derivatives \
                     (`{method}_grad`, ..) in an inherent `impl {shown}` beside the trait's `impl`, where `{ident}`, a parameter of \
                     the trait alone, cannot be declared (rustc's E0207). Write the method's body as a free \
                     `#[differentiable]` function generic over `{ident}`, call it from the method, and call \
                     its `_grad`"
                ),
            );
        }
    }
}

/// Records an error at each of `names` (the block's differentiated methods) that a `#[differentiable]`
/// method of another trait's `impl` for the same type, above it in the file, shares: the items of both
/// would stand in inherent `impl`s of the type under the same names (rustc's E0592 at each of them). The
/// names that clash.
fn check_clashes(block: &syn::ItemImpl, names: &[Ident], errors: &mut Errors) -> Vec<Ident> {
    let self_ty = &block.self_ty;
    let Some((_, path, _)) = &block.trait_ else {
        return Vec::new();
    };
    let mut clashes = Vec::new();
    let own = format!("impl {} for {}", shown(path), shown(self_ty));
    for (header, marked) in
        crate::context::trait_impls_before(&self_ty.to_token_stream().to_string())
    {
        for name in names.iter().filter(|n| marked.contains(&n.to_string())) {
            errors.spanned(
                name,
                format!(
                    "`#[differentiable]` on `{name}` of `{own}` emits its derivatives (`{name}_grad`, \
                     `{name}_vjp`, ..) in an inherent `impl {ty}`, and so does `#[differentiable]` on `{name}` \
                     of `{header}` above: a type's inherent items have one name each (rustc's E0592). Keep \
                     `#[differentiable]` on one of them, or write the bodies as free `#[differentiable]` \
                     functions of other names that the methods call, and call their `_grad`",
                    ty = shown(self_ty),
                ),
            );
            clashes.push(name.clone());
        }
    }
    clashes
}

/// What `ty` is where it is surely not a type defined in this crate (`"a reference"`), else `None`.
fn not_local(ty: &Type, generics: &syn::Generics) -> Option<&'static str> {
    const PRIMITIVES: &[&str] = &[
        "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
        "u128", "usize", "bool", "char", "str",
    ];
    // Named alone, surely the prelude's: a user's type may be named like another of `std`'s (`Cell`),
    // which rustc's E0116 then reports if it is `std`'s.
    const PRELUDE: &[&str] = &["Vec", "Box", "Option", "Result", "String"];
    match ty {
        Type::Paren(p) => not_local(&p.elem, generics),
        Type::Group(g) => not_local(&g.elem, generics),
        Type::Reference(_) => Some("a reference"),
        Type::Ptr(_) => Some("a pointer"),
        Type::Tuple(_) => Some("a tuple"),
        Type::Array(_) | Type::Slice(_) => Some("an array or a slice"),
        Type::Path(p) if p.qself.is_some() => Some("an associated type"),
        Type::Path(p) => {
            let first = &p.path.segments.first()?.ident;
            let last = &p.path.segments.last()?.ident;
            let single = p.path.segments.len() == 1 && p.path.leading_colon.is_none();
            if single && generics.type_params().any(|t| t.ident == *first) {
                Some("a type parameter")
            } else if single && PRIMITIVES.iter().any(|name| last == name) {
                Some("a primitive type")
            } else if (single && PRELUDE.iter().any(|name| last == name))
                || ["std", "core", "alloc"].iter().any(|name| first == name)
            {
                Some("a type of the standard library")
            } else {
                None
            }
        }
        Type::Never(_) => Some("the never type"),
        _ => Some("not a type named by a path"),
    }
}

/// Tokens as a person writes them: `Energy<T>`, `&'a Spring`.
fn shown(tokens: &impl ToTokens) -> String {
    crate::custom::shown(tokens)
        .replace(" < ", "<")
        .replace(" <", "<")
        .replace(" >", ">")
}

/// Every identifier in `tokens`.
fn idents(tokens: TokenStream) -> Vec<Ident> {
    let mut found = Vec::new();
    for tree in tokens {
        match tree {
            proc_macro2::TokenTree::Ident(ident) => found.push(ident),
            proc_macro2::TokenTree::Group(group) => found.extend(idents(group.stream())),
            _ => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expanded(block: &str) -> String {
        let block: syn::ItemImpl = syn::parse_str(block).expect("an impl block");
        expand(TokenStream::new(), block).to_string()
    }

    /// How many `impl` blocks `out` holds.
    fn impls(out: &str) -> usize {
        let file: syn::File = syn::parse_str(out).expect("items");
        file.items
            .iter()
            .filter(|item| matches!(item, syn::Item::Impl(_)))
            .count()
    }

    #[test]
    fn a_trait_method_goes_into_an_inherent_impl_beside() {
        let out = expanded(
            "impl<T: Float> Energy for Model<T> where T: Copy { type Scalar = T; \
             #[differentiable(order = 2,)] fn energy(&self, x: Self::Scalar) -> T { x } fn name(&self) {} }",
        );
        let (trait_impl, inherent) = out.split_once("impl < T : Float > Model").expect(&out);
        assert!(!trait_impl.contains("differentiable"), "{out}");
        assert!(trait_impl.contains("fn name"), "{out}");
        assert!(
            inherent.contains(
                "# [differentiable (order = 2 , __of_trait)] pub fn energy (& self , x : T)"
            ),
            "{out}"
        );
        assert!(!inherent.contains("fn name"), "{out}");
    }

    #[test]
    fn inherent_impls_are_unchanged_and_blocks_without_marked_methods_errors() {
        let inherent = "impl Model { # [differentiable] fn f (x : f64) -> f64 { x } }";
        assert!(expanded(inherent).contains("# [differentiable] fn f"));
        let plain = expanded("impl Energy for Model { fn f(x: f64) -> f64 { x } }");
        assert_eq!(impls(&plain), 1, "{plain}");
        assert!(plain.contains("compile_error"), "{plain}");
    }

    #[test]
    fn a_renamed_attribute_expands_in_an_inherent_impl_and_is_an_error_in_a_trait_impl() {
        let inherent = expanded("impl Model { #[ad(order = 2)] fn f(&self, x: f64) -> f64 { x } }");
        assert!(!inherent.contains("compile_error"), "{inherent}");
        assert!(inherent.contains("# [ad (order = 2)] fn f"), "{inherent}");
        let of_trait =
            expanded("impl E for Model { #[inline] #[ad] fn f(&self, x: f64) -> f64 { x } }");
        assert!(of_trait.contains("compile_error"), "{of_trait}");
        assert!(of_trait.contains("`#[ad]` on `f`"), "{of_trait}");
        assert!(!of_trait.contains("# [ad]"), "{of_trait}");
        assert!(of_trait.contains("# [inline]"), "{of_trait}");
    }

    #[test]
    fn self_types_of_other_crates_are_errors() {
        for header in [
            "impl Energy for f64",
            "impl<'a> Energy for &'a Spring",
            "impl Energy for Vec<f64>",
            "impl Energy for (f64, f64)",
            "impl<T: Float> Energy for T",
            "impl Energy for std::rc::Rc<Spring>",
            "impl<T: Float> Energy<T> for Spring",
        ] {
            let out = expanded(&format!(
                "{header} {{ #[differentiable] fn energy(&self, x: f64) -> f64 {{ x }} }}"
            ));
            assert!(out.contains("compile_error"), "{header}: {out}");
            assert_eq!(impls(&out), 1, "{header}: {out}");
        }
        for local in [
            "impl<'a, T: Float> Energy for m::Model<'a, T>",
            "impl Energy for Cell",
            "impl Energy for HashMap",
        ] {
            let out = expanded(&format!(
                "{local} {{ #[differentiable] fn e(&self, x: f64) -> f64 {{ x }} }}"
            ));
            assert!(!out.contains("compile_error"), "{local}: {out}");
        }
    }
}
