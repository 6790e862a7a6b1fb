//! The structs and enums of a file that the `--order2` census can make from a point's floats, so that a
//! function taking one (`p: &Mlp`, `self` of a method) has its Hessian checked too.
//!
//! A struct can be made when each of its fields can: a float (or a type parameter of the struct, made as
//! `f64`), an integer, a `bool`, a `String` (a fixed word), an `Option` (`None`), a `Vec`, array or tuple
//! of those, or another struct or enum of the file that
//! can be made. An enum can be made when its variants are all units (the point's seed picks one, so that the
//! three points of a check see different variants). Beside each such type the census writes an impl of the
//! work crate's `support::Take`, which takes the fields in declaration order, each active when the struct
//! derives `Differentiable` and the field is not `#[no_grad]`; beside each struct deriving `Differentiable`,
//! an impl of `support::Flat` through its flat view (`Differentiable::extend_flat`: the differentiable fields
//! in declaration order, which API.md makes the order of the Hessian's rows), and of `support::Cotangent`
//! and `support::Fill` through it (a tangent of weights, buffers of garbage for `f_grad_into`). The impls
//! sit beside the type's definition, where its private fields are in scope.
//!
//! A name defined twice in a file (in two modules) is made when every definition of it can be, and all or
//! none of them derive `Differentiable`: the census does not resolve names, rustc picks the impl.

use quote::quote;
use std::collections::BTreeMap;

/// A struct or enum of a file.
#[derive(Clone, Debug)]
struct Def {
    generics: syn::Generics,
    differentiable: bool,
    body: Body,
}

#[derive(Clone, Debug)]
enum Body {
    /// The fields (named or not) in declaration order, each with whether it is `#[no_grad]`.
    Struct(syn::Fields, Vec<bool>),
    /// The variants, when all are units; else why the enum cannot be made.
    Enum(Result<Vec<syn::Ident>, String>),
}

/// The structs and enums of one file, and which of them the census can make.
#[derive(Debug, Default)]
pub(super) struct Shapes {
    /// The definitions of each name (several in different modules).
    defs: BTreeMap<String, Vec<Def>>,
    /// Why a name cannot be made (absent: it can).
    why_not: BTreeMap<String, String>,
}

impl Def {
    /// The definition of a struct or enum item, with its name.
    fn of(item: &syn::Item) -> Option<(String, Def)> {
        match item {
            syn::Item::Struct(s) => {
                let no_grad = s
                    .fields
                    .iter()
                    .map(|f| f.attrs.iter().any(|a| attr_is(a, "no_grad")))
                    .collect();
                Some((
                    s.ident.to_string(),
                    Def {
                        generics: s.generics.clone(),
                        differentiable: derives_differentiable(&s.attrs),
                        body: Body::Struct(s.fields.clone(), no_grad),
                    },
                ))
            }
            syn::Item::Enum(e) => {
                let variants = if e.variants.is_empty() {
                    Err("an enum without variants".to_string())
                } else if !e.generics.params.is_empty() {
                    Err("a generic enum".to_string())
                } else if let Some(v) = e
                    .variants
                    .iter()
                    .find(|v| !matches!(v.fields, syn::Fields::Unit))
                {
                    Err(format!(
                        "an enum with a variant holding data (`{}`)",
                        v.ident
                    ))
                } else {
                    Ok(e.variants.iter().map(|v| v.ident.clone()).collect())
                };
                Some((
                    e.ident.to_string(),
                    Def {
                        generics: e.generics.clone(),
                        differentiable: false,
                        body: Body::Enum(variants),
                    },
                ))
            }
            _ => None,
        }
    }
}

/// The last segment's name of an attribute's path.
fn attr_is(a: &syn::Attribute, name: &str) -> bool {
    a.path().segments.last().is_some_and(|s| s.ident == name)
}

/// Whether `#[derive(.., Differentiable, ..)]` is among `attrs`.
fn derives_differentiable(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().filter(|a| attr_is(a, "derive")).any(|a| {
        a.parse_args_with(
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        )
        .is_ok_and(|paths| {
            paths.iter().any(|p| {
                p.segments
                    .last()
                    .is_some_and(|s| s.ident == "Differentiable")
            })
        })
    })
}

/// The field types made as they are (`String` as a fixed word).
const PLAIN: &[&str] = &[
    "f64", "f32", "usize", "u8", "u16", "u32", "u64", "isize", "i8", "i16", "i32", "i64", "bool",
    "String",
];

impl Shapes {
    /// The structs and enums of `file` (at module level, in nested modules too; not those in bodies).
    pub(super) fn collect(file: &syn::File) -> Shapes {
        let mut shapes = Shapes::default();
        shapes.walk(&file.items);
        for (name, defs) in &shapes.defs {
            if defs
                .iter()
                .any(|d| d.differentiable != defs[0].differentiable)
            {
                shapes.why_not.insert(
                    name.clone(),
                    "two types of this name in its file, one deriving `Differentiable` (the census \
                     does not resolve names)"
                        .into(),
                );
            }
        }
        // What cannot be made, until nothing changes: a type with a field of a type that cannot be made.
        loop {
            let mut changed = false;
            let names: Vec<String> = shapes.defs.keys().cloned().collect();
            for name in names {
                if shapes.why_not.contains_key(&name) {
                    continue;
                }
                if let Err(why) = shapes.defs[&name]
                    .iter()
                    .try_for_each(|d| shapes.makeable_def(d))
                {
                    shapes.why_not.insert(name, why);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        shapes
    }

    fn walk(&mut self, items: &[syn::Item]) {
        for item in items {
            if let syn::Item::Mod(m) = item {
                if let Some((_, inner)) = &m.content {
                    self.walk(inner);
                }
            } else if let Some((name, def)) = Def::of(item) {
                self.defs.entry(name).or_default().push(def);
            }
        }
    }

    /// Whether a definition can be made, given what is known not to be.
    fn makeable_def(&self, def: &Def) -> Result<(), String> {
        let params: Vec<String> = def
            .generics
            .type_params()
            .map(|t| t.ident.to_string())
            .collect();
        if def.generics.lifetimes().next().is_some() {
            return Err("a type with lifetime parameters (its fields borrow)".into());
        }
        match &def.body {
            Body::Enum(v) => v.as_ref().map(|_| ()).map_err(Clone::clone),
            Body::Struct(fields, _) => fields
                .iter()
                .try_for_each(|f| self.makeable(&f.ty, &params)),
        }
    }

    /// Whether a field of type `ty` can be made, `params` the struct's type parameters.
    fn makeable(&self, ty: &syn::Type, params: &[String]) -> Result<(), String> {
        let cannot = || {
            Err(format!(
                "a field of type `{}`",
                quote!(#ty)
                    .to_string()
                    .replace(" < ", "<")
                    .replace(" >", ">")
            ))
        };
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return cannot();
                };
                let name = last.ident.to_string();
                if p.path.segments.len() == 1
                    && (params.contains(&name) || PLAIN.contains(&name.as_str()))
                {
                    return Ok(());
                }
                let args: Vec<&syn::Type> = match &last.arguments {
                    syn::PathArguments::None => Vec::new(),
                    syn::PathArguments::AngleBracketed(a) => a
                        .args
                        .iter()
                        .filter_map(|a| match a {
                            syn::GenericArgument::Type(t) => Some(t),
                            _ => None,
                        })
                        .collect(),
                    syn::PathArguments::Parenthesized(_) => return cannot(),
                };
                // An optional field (a list's link) is made `None`.
                if name == "Option" {
                    return Ok(());
                }
                if name == "Vec" && args.len() == 1 {
                    return self.makeable(args[0], params);
                }
                match self.why_not(&name) {
                    None => args.iter().try_for_each(|a| self.makeable(a, params)),
                    Some(_) => cannot(),
                }
            }
            syn::Type::Array(a) => self.makeable(&a.elem, params),
            syn::Type::Tuple(t) if !t.elems.is_empty() => {
                t.elems.iter().try_for_each(|e| self.makeable(e, params))
            }
            syn::Type::Paren(p) => self.makeable(&p.elem, params),
            _ => cannot(),
        }
    }

    /// Why the type named `name` cannot be made, or `None` if it can.
    pub(super) fn why_not(&self, name: &str) -> Option<String> {
        if let Some(why) = self.why_not.get(name) {
            return Some(why.clone());
        }
        (!self.defs.contains_key(name)).then(|| "a type not defined in its file".to_string())
    }

    /// Whether the type named `name` (which can be made) derives `Differentiable`.
    pub(super) fn differentiable(&self, name: &str) -> bool {
        self.defs
            .get(name)
            .is_some_and(|d| d.iter().all(|d| d.differentiable))
    }

    /// The impls the census adds beside `item`, if it defines a type it can make.
    pub(super) fn impls(&self, item: &syn::Item) -> Vec<syn::Item> {
        let Some((name, def)) = Def::of(item) else {
            return Vec::new();
        };
        if self.why_not(&name).is_some() {
            return Vec::new();
        }
        let ident = syn::Ident::new(&name, proc_macro2::Span::call_site());
        let mut generics = def.generics.clone();
        let params: Vec<syn::Ident> = generics.type_params().map(|t| t.ident.clone()).collect();
        {
            let w = generics.make_where_clause();
            for p in &params {
                w.predicates
                    .push(syn::parse_quote!(#p: crate::support::Take));
            }
        }
        let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
        let value = match &def.body {
            Body::Enum(Ok(variants)) => {
                let n = variants.len();
                let arms = variants.iter().enumerate().map(|(k, v)| {
                    if k + 1 == n {
                        quote!(_ => #ident::#v)
                    } else {
                        quote!(#k => #ident::#v)
                    }
                });
                quote!(match __src.pick(#n) { #(#arms,)* })
            }
            Body::Enum(Err(_)) => return Vec::new(),
            Body::Struct(fields, no_grad) => {
                let takes = fields.iter().zip(no_grad).map(|(f, no_grad)| {
                    let active = def.differentiable && !no_grad;
                    let take = quote!(crate::support::Take::take(__src, __active && #active, __c));
                    match &f.ident {
                        Some(name) => quote!(#name: #take),
                        None => take,
                    }
                });
                match fields {
                    syn::Fields::Named(_) => quote!(#ident { #(#takes,)* }),
                    syn::Fields::Unnamed(_) => quote!(#ident ( #(#takes,)* )),
                    syn::Fields::Unit => quote!(#ident),
                }
            }
        };
        let mut out: Vec<syn::Item> = vec![syn::parse_quote! {
            #[allow(warnings, clippy::all)]
            impl #impl_generics crate::support::Take for #ident #ty_generics #where_clause {
                const NESTED: bool = true;
                fn take(
                    __src: &mut crate::support::Source,
                    __active: bool,
                    __c: &crate::support::Config,
                ) -> Self {
                    #value
                }
            }
        }];
        if def.differentiable {
            let mut generics = def.generics.clone();
            generics
                .make_where_clause()
                .predicates
                .push(syn::parse_quote!(Self: ::autodiff::Differentiable));
            let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
            out.push(syn::parse_quote! {
                #[allow(warnings, clippy::all)]
                impl #impl_generics crate::support::Flat for #ident #ty_generics #where_clause {
                    fn flat(&self, __out: &mut ::std::vec::Vec<f64>) {
                        ::autodiff::Differentiable::extend_flat(self, __out)
                    }
                }
            });
            // A tangent (or cotangent) shaped like a value of it: its flat view's floats replaced by the
            // harness's weights (`#[no_grad]` fields copied, as `from_flat` does).
            out.push(syn::parse_quote! {
                #[allow(warnings, clippy::all)]
                impl #impl_generics crate::support::Cotangent for #ident #ty_generics #where_clause {
                    fn cotangent(&self, __k: &mut usize) -> Self {
                        let mut __flat = ::std::vec::Vec::new();
                        ::autodiff::Differentiable::extend_flat(self, &mut __flat);
                        let __weights: ::std::vec::Vec<f64> =
                            __flat.iter().map(|__v| crate::support::Cotangent::cotangent(__v, __k)).collect();
                        ::autodiff::Differentiable::from_flat(self, &__weights)
                    }
                }
            });
            // A gradient of it made garbage (`f_grad_into`'s buffer before the call): every float of its
            // flat view set to one value.
            out.push(syn::parse_quote! {
                #[allow(warnings, clippy::all)]
                impl #impl_generics crate::support::Fill for #ident #ty_generics #where_clause {
                    fn fill(&mut self, __x: f64) {
                        let mut __flat = ::std::vec::Vec::new();
                        ::autodiff::Differentiable::extend_flat(self, &mut __flat);
                        let __garbage = ::std::vec![__x; __flat.len()];
                        *self = ::autodiff::Differentiable::from_flat(self, &__garbage);
                    }
                }
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes(src: &str) -> Shapes {
        Shapes::collect(&syn::parse_file(src).unwrap())
    }

    #[test]
    fn structs_of_floats_vecs_and_each_other_are_made() {
        let s = shapes(
            "#[derive(Clone, Differentiable)] struct Layer<T: Float> { w: Vec<Vec<T>>, b: [T; 2] }
             mod inner { #[derive(autodiff::Differentiable)] pub struct Net { l: super::Layer<f64>, #[no_grad] n: usize } }
             struct Data(Vec<(f64, usize)>, bool);
             enum Mode { A, B }",
        );
        for name in ["Layer", "Net", "Data", "Mode"] {
            assert_eq!(s.why_not(name), None, "{name}");
        }
        assert!(s.differentiable("Layer") && s.differentiable("Net"));
        assert!(!s.differentiable("Data") && !s.differentiable("Mode"));
    }

    #[test]
    fn what_cannot_be_made_says_why_and_spreads_to_its_holders() {
        let s = shapes(
            "struct Named { name: Box<str>, k: f64 }
             struct Holder { n: Named }
             struct View<'a> { xs: &'a [f64] }
             enum Shape { Circle(f64), Dot }
             mod a { struct Twice; } mod b { #[derive(Differentiable)] struct Twice { x: f64 } }
             mod c { struct Same { x: f64 } } mod d { struct Same(f64); }",
        );
        assert_eq!(s.why_not("Named").unwrap(), "a field of type `Box<str>`");
        assert_eq!(s.why_not("Holder").unwrap(), "a field of type `Named`");
        assert!(s.why_not("View").unwrap().contains("lifetime"));
        assert!(s.why_not("Shape").unwrap().contains("`Circle`"));
        assert!(s
            .why_not("Twice")
            .unwrap()
            .contains("two types of this name"));
        assert_eq!(s.why_not("Same"), None);
        assert!(s.why_not("Missing").unwrap().contains("not defined"));
    }

    #[test]
    fn impls_take_fields_in_order_active_unless_no_grad() {
        let file: syn::File = syn::parse_str(
            "#[derive(Differentiable)] struct P<T: Float> { a: T, #[no_grad] n: usize, v: Vec<T> }",
        )
        .unwrap();
        let s = Shapes::collect(&file);
        let text: Vec<String> = s
            .impls(&file.items[0])
            .iter()
            .map(|i| quote!(#i).to_string())
            .collect();
        assert_eq!(text.len(), 4);
        assert!(text[0].contains("a : crate :: support :: Take :: take (__src , __active && true , __c) , n : crate :: support :: Take :: take (__src , __active && false , __c) , v :"), "{}", text[0]);
        assert!(
            text[0].contains("T : crate :: support :: Take"),
            "{}",
            text[0]
        );
        assert!(text[1].contains("extend_flat"), "{}", text[1]);
        assert!(text[2].contains("from_flat"), "{}", text[2]);
        assert!(text[3].contains("support :: Fill for P"), "{}", text[3]);
        assert!(text[3].contains("from_flat"), "{}", text[3]);
    }
}
