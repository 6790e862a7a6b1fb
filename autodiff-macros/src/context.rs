//! Where an attributed function stands: among items (a module, a block) or inside an `impl` block.
//!
//! An attribute macro receives the function alone. An associated function that neither takes `self` nor
//! names `Self` (`impl Model { #[differentiable] fn energy(a: f64, b: f64) -> f64 {..} }`) reads exactly like
//! a free function, yet its expansion may hold only associated items: no companion type. So the macro asks
//! the source: the attribute's position (`proc_macro::Span::call_site`, its file, line and column) in the
//! file rustc compiles, and the innermost `{ .. }` around it. The answer counts only where the source shows
//! `fn <name>` right after the attribute: a function the macro writes itself (a generic copy, a hidden
//! function nested in a body) has the call site of the user's attribute but another name, and says where it
//! stands with the hidden argument `__in_impl`. Where the source is not at hand (a doctest, a span inside a
//! macro's expansion), the caller keeps to the syntax of the function.
//!
//! The answer holds for one expansion ([`enter`]), and `expand::is_method` reads it ([`in_impl`]).

use proc_macro2::Ident;
use std::cell::Cell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

thread_local! {
    /// Whether the function of the expansion under way is known to stand in an `impl` block.
    static IN_IMPL: Cell<bool> = const { Cell::new(false) };
}

/// The expansion of one function, known to stand in an `impl` block or not, until dropped.
pub(crate) struct Scope {
    outer: bool,
}

/// Records, for the expansion under way, whether its function stands in an `impl` block.
pub(crate) fn enter(in_impl: bool) -> Scope {
    Scope {
        outer: IN_IMPL.with(|cell| cell.replace(in_impl)),
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        IN_IMPL.with(|cell| cell.set(self.outer));
    }
}

/// Whether the function of the expansion under way is known to stand in an `impl` block ([`enter`]).
pub(crate) fn in_impl() -> bool {
    IN_IMPL.with(Cell::get)
}

/// When a file was last modified, and its length.
type Stamp = Option<(Option<std::time::SystemTime>, u64)>;

/// The files read so far: their stamp when read, and their blocks (`None` where unreadable).
type Files = HashMap<PathBuf, (Stamp, Option<Blocks>)>;

/// What [`scan`] finds in a text: the `blocks` and `headers` of [`Blocks`].
type Scanned = (Vec<(usize, usize, bool)>, HashMap<usize, usize>);

/// The brace blocks of one source file, scanned once per file and compilation.
struct Blocks {
    text: String,
    /// `(open, close, is_impl)`: byte offsets of a `{` and its `}`, and whether its header is `impl ..`.
    blocks: Vec<(usize, usize, bool)>,
    /// The byte offset where the header of the block opened at each key begins (its first word, attributes
    /// left out).
    headers: HashMap<usize, usize>,
    /// The types the file declares, by name, read once where asked ([`declared_as_data`]).
    types: std::cell::OnceCell<HashMap<(Vec<String>, String), Declared>>,
    /// The functions the file declares among a module's items, read once where asked
    /// ([`sibling_integer_parameters`]).
    functions: std::cell::OnceCell<FunctionsOfModules>,
    /// The byte offset where each line begins, the first line's 0 first ([`offset_of`]).
    line_starts: Vec<usize>,
    /// The functions of the file's item lists ([`differentiable_sibling`]), read where first asked.
    siblings: std::cell::OnceCell<Siblings>,
}

/// [`module_functions`]' answer.
type FunctionsOfModules = HashMap<(Vec<String>, String), Vec<SiblingFn>>;

/// What a file shows of one function declaration.
#[derive(Clone, PartialEq, Debug)]
struct SiblingFn {
    /// For each parameter, whether its type is an integer or `bool`.
    integers: Vec<bool>,
    /// For each parameter, the name of its type where that is one bare name, by value or by reference
    /// (`Act` of `act: Act` or `act: &Act`): an enum the file declares holds no float either
    /// ([`sibling_integer_parameters`]).
    type_names: Vec<Option<String>>,
    /// Whether its attributes are all among those that give a function no derivatives (`doc`, `inline`,
    /// `allow`, ..): a function without `#[differentiable]` or `#[custom_gradient]`.
    plain: bool,
    /// Whether an attribute named `differentiable` (`#[differentiable(..)]`,
    /// `#[autodiff::differentiable]`) is among its attributes.
    differentiable: bool,
}

impl Blocks {
    /// The blocks of the source file `text`, its declarations read later, where asked.
    fn new(text: String) -> Self {
        let (blocks, headers) = scan(&text);
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        Blocks {
            text,
            blocks,
            headers,
            types: std::cell::OnceCell::new(),
            functions: std::cell::OnceCell::new(),
            line_starts,
            siblings: std::cell::OnceCell::new(),
        }
    }

    /// The functions of the file's item lists, read where first asked from the text with every
    /// function's body emptied ([`without_bodies`]).
    fn siblings(&self) -> &Siblings {
        self.siblings.get_or_init(|| {
            Siblings::read(&without_bodies(
                &self.text,
                &self.blocks,
                &self.headers,
                false,
            ))
        })
    }

    /// The types the file declares ([`declared_types`]), read where first asked.
    fn types(&self) -> &HashMap<(Vec<String>, String), Declared> {
        self.read_declarations();
        self.types.get_or_init(HashMap::new)
    }

    /// The functions the file declares among a module's items ([`module_functions`]), read where first
    /// asked.
    fn functions(&self) -> &FunctionsOfModules {
        self.read_declarations();
        self.functions.get_or_init(HashMap::new)
    }

    /// Parses the file once for both [`Blocks::types`] and [`Blocks::functions`] (a parse of the file is
    /// most of what either costs; the parsed file itself cannot be kept, its spans being tied to this
    /// expansion's thread).
    fn read_declarations(&self) {
        if self.types.get().is_some() && self.functions.get().is_some() {
            return;
        }
        let file = syn::parse_file(&without_plain_bodies(
            &self.text,
            &self.blocks,
            &self.headers,
        ))
        .ok();
        let _ = self.types.set(declared_types(file.as_ref()));
        let _ = self.functions.set(module_functions(file.as_ref()));
    }
}

// Input:  `struct P { a: f64 }\nfn f(p: &P) -> f64 { p.a * 2.0 }\nfn g() { struct Q; }`
// Output: `struct P { a: f64 }\nfn f(p: &P) -> f64 {}\nfn g() { struct Q; }`
/// `text` with the bodies of its functions emptied where they declare no item (no word `fn`, `struct`,
/// `enum`, `union`, `type`, `use`, `impl` or `mod` inside, strings and comments included, so a doubt keeps
/// the body): what [`declared_types`] and [`module_functions`] read (declarations and signatures, also
/// of items inside bodies) without parsing every statement of the file, which was most of what a parse
/// cost (each token a round trip to the compiler inside a procedural macro). The result is only parsed,
/// never shown: rustc checks the file itself.
fn without_plain_bodies(
    text: &str,
    blocks: &[(usize, usize, bool)],
    headers: &HashMap<usize, usize>,
) -> String {
    without_bodies(text, blocks, headers, true)
}

/// `text` with the bodies of its functions emptied: those declaring no item ([`without_plain_bodies`]),
/// or, not `keep_items`, all of them (what [`differentiable_sibling`] reads: the items of modules and
/// `impl` blocks, their signatures and attributes).
fn without_bodies(
    text: &str,
    blocks: &[(usize, usize, bool)],
    headers: &HashMap<usize, usize>,
    keep_items: bool,
) -> String {
    const ITEMS: &[&str] = &[
        "fn", "struct", "enum", "union", "type", "use", "impl", "mod",
    ];
    let words = |part: &str| {
        part.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect::<Vec<String>>()
    };
    // A function's block: its header (from its first word to the `{`) has the word `fn` before any
    // parenthesis (`pub(crate) fn`, `const fn`, `unsafe extern "C" fn`), and its end is known.
    let is_function = |open: usize| {
        let start = headers.get(&open).copied().unwrap_or(open);
        let header = &text[start.min(open)..open];
        // (`pub(crate)`, `pub(in path)` left out first.)
        let header = header
            .strip_prefix("pub(")
            .and_then(|rest| rest.find(')').map(|n| &rest[n + 1..]))
            .unwrap_or(header);
        let before_params = header.split('(').next().unwrap_or(header);
        words(before_params).iter().any(|w| w == "fn")
    };
    let mut emptied: Vec<(usize, usize)> = blocks
        .iter()
        .filter(|&&(open, close, _)| close < text.len() && open < close && is_function(open))
        .filter(|&&(open, close, _)| {
            !keep_items
                || !words(&text[open + 1..close])
                    .iter()
                    .any(|w| ITEMS.contains(&w.as_str()))
        })
        .map(|&(open, close, _)| (open + 1, close))
        .collect();
    emptied.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (from, to) in emptied {
        // A body inside one emptied already (a closure's block in a function's) is gone with it.
        if from < at {
            continue;
        }
        out.push_str(&text[at..from]);
        at = to;
    }
    out.push_str(&text[at..]);
    out
}

/// What a file shows of the items declaring one type name.
#[derive(Clone, Default, PartialEq, Debug)]
struct Declared {
    /// A struct whose attributes do not name `Differentiable`.
    data_struct: bool,
    /// The named fields of a data struct without type parameters whose declared type is a primitive
    /// scalar (`usize`, `i32`, `bool`, `f64`, ..), with that type's name: what `order = K` reads them as
    /// ([`data_field_type`]). Empty where more than one struct of the name is declared there.
    scalar_fields: HashMap<String, String>,
    /// An enum or a union.
    data_enum: bool,
    /// A struct whose attributes name `Differentiable` (`#[derive(Differentiable)]`, also under
    /// `cfg_attr`), an `impl` of a trait named `Differentiable` for it, a type alias or a `use` renaming
    /// to it: what the name stands for may be a parameter struct.
    maybe_differentiable: bool,
    /// A struct, with the derive or without.
    a_struct: bool,
    /// The named fields of a struct (with the derive or without), by name, with their declared types
    /// ([`declared_constant_field`]), as tokens (a `syn::Type` is not `Send`, and the files are kept in a
    /// `static`). Empty where more than one struct of the name is declared there.
    field_types: HashMap<String, String>,
    /// The items a `use` of the module brings by this name (`use super::model::Layer;`), each as the inline
    /// module the path names from the file's top (`["model"]`) and the item's name there ([`declared_at`]
    /// follows one of them to where the file declares it).
    imported: Vec<(Vec<String>, String)>,
}

/// Does the source show the attribute being expanded on `fn name` inside an `impl` block? `false` where
/// it shows otherwise or cannot tell.
pub(crate) fn written_in_impl(name: &Ident) -> bool {
    attribute_in_impl(&name.to_string()) == Some(true)
}

/// Does the source show the attribute being expanded on `fn name` among a module's items (a file's top
/// level or a `mod { .. }` block), where `self::name` names it? `false` where it shows otherwise (a block,
/// an `impl`) or cannot tell.
pub(crate) fn written_in_module(name: &Ident) -> bool {
    attribute_site(&name.to_string(), |blocks, offset| {
        let innermost = blocks
            .blocks
            .iter()
            .filter(|(open, close, _)| *open < offset && offset < *close)
            .max_by_key(|(open, _, _)| *open);
        match innermost {
            None => true,
            // `mod name {`, after `pub` and attributes: the last two words before the brace.
            Some((open, _, _)) => {
                let mut words = blocks.text[..*open].split_whitespace().rev();
                let (_, keyword) = (words.next(), words.next());
                keyword == Some("mod")
            }
        }
    }) == Some(true)
}

/// A trait's block that the source shows a function standing in, with its header as written.
pub(crate) enum TraitBlock {
    /// The `impl` of a trait: `impl Energy for Spring`.
    Impl(String),
    /// The trait's definition: `pub trait Energy`.
    Definition(String),
}

/// Where the source shows the attribute being expanded on `fn name` inside a trait's `impl`
/// (`impl Energy for Spring { .. }`) or a trait's definition (`trait Energy { .. }`), which block;
/// `None` where it shows otherwise or cannot tell.
pub(crate) fn written_in_trait_block(name: &Ident) -> Option<TraitBlock> {
    attribute_site(&name.to_string(), |blocks, offset| {
        let (open, _, _) = blocks
            .blocks
            .iter()
            .filter(|(open, close, _)| *open < offset && offset < *close)
            .max_by_key(|(open, _, _)| *open)?;
        let start = *blocks.headers.get(open)?;
        let header = blocks.text.get(start..*open)?.trim();
        trait_block(header)
    })
    .flatten()
}

/// The path of the attribute being expanded on `fn name` as the source writes it (`differentiable`, `ad`
/// of `use autodiff::differentiable as ad;`); `None` where the source cannot tell.
pub(crate) fn attribute_written(name: &Ident) -> Option<String> {
    attribute_site(&name.to_string(), |blocks, offset| {
        attribute_path(&blocks.text[offset..])
    })
    .flatten()
}

/// The path of the attribute `text` begins with: `ad` of `#[ad]`, `autodiff::differentiable` of
/// `#[autodiff::differentiable(order = 2)]`.
fn attribute_path(text: &str) -> Option<String> {
    let inner = text.strip_prefix('#')?.trim_start().strip_prefix('[')?;
    let end = inner.find(['(', ']', '='])?;
    let path: String = inner[..end]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    (!path.is_empty()).then_some(path)
}

/// Which trait's block `header`, the words before a block's `{`, opens, if any.
fn trait_block(header: &str) -> Option<TraitBlock> {
    let block = format!("{header} {{}}");
    if syn::parse_str::<syn::ItemImpl>(&block).is_ok_and(|item| item.trait_.is_some()) {
        Some(TraitBlock::Impl(header.to_owned()))
    } else if syn::parse_str::<syn::ItemTrait>(&block).is_ok() {
        Some(TraitBlock::Definition(header.to_owned()))
    } else {
        None
    }
}

/// Is the attribute being expanded, on `fn name`, written inside an `impl` block? `None` when the source
/// cannot tell.
fn attribute_in_impl(name: &str) -> Option<bool> {
    attribute_site(name, |blocks, offset| {
        innermost_is_impl(&blocks.blocks, offset)
    })
}

/// `answer` of the source file's blocks and the attribute's offset in it, where the source shows the
/// attribute being expanded on `fn name`; `None` when it cannot tell.
fn attribute_site<T>(name: &str, answer: impl FnOnce(&Blocks, usize) -> T) -> Option<T> {
    call_site(|blocks, offset| {
        // The span must point at an attribute on `fn name`: else it belongs to another text than the one
        // read (a macro's expansion) or to another function (one the macro writes), and the answer would
        // be a guess.
        attribute_on(&blocks.text[offset..], name).then(|| answer(blocks, offset))
    })
    .flatten()
}

/// `answer` of the source file's blocks and the offset in it of the attribute being expanded; `None` when
/// the source is not at hand.
fn call_site<T>(answer: impl FnOnce(&Blocks, usize) -> T) -> Option<T> {
    // Outside a procedural macro (unit tests) there is no call site to ask.
    if !proc_macro::is_available() {
        return None;
    }
    let site = proc_macro::Span::call_site();
    let path = site.local_file()?;
    let (line, column) = (site.line(), site.column());
    // Keyed by the file's modification time and length too: a long-lived host (an IDE's macro server)
    // expands the same file again after it was edited.
    let stamp = std::fs::metadata(&path)
        .ok()
        .map(|m| (m.modified().ok(), m.len()));
    static FILES: OnceLock<Mutex<Files>> = OnceLock::new();
    let mut files = FILES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let entry = files.entry(path.clone()).or_insert((None, None));
    if entry.0.is_none() || entry.0 != stamp {
        let read = std::fs::read_to_string(&path).ok().map(Blocks::new);
        *entry = (stamp, read);
    }
    let blocks = entry.1.as_ref()?;
    let offset = offset_of(&blocks.text, &blocks.line_starts, line, column)?;
    Some(answer(blocks, offset))
}

// Input:  `Settings`, of a file holding `pub struct Settings { scale: f64, n: usize }` (no derive)
// Output: true
/// Does the source file of the attribute being expanded show the type named `name` as data rather than a
/// parameter struct: every item declaring that name in the attribute's module (or, where that declares
/// none, the nearest module around it that does: `use super::*`) is an enum, a union or a struct whose
/// attributes do not name `Differentiable`, and nothing else there (an `impl Differentiable for`, a type
/// alias, a `use .. as name`) may make it one? API.md passes such a parameter through, as it does
/// "anything else". `false` where the file declares no item of that name, or the source is not at hand:
/// the macro cannot see the type, and a parameter of it is a parameter struct (an error says so where it
/// does not derive `Differentiable`).
pub(crate) fn declared_as_data(name: &str) -> Option<Data> {
    call_site(|blocks, offset| data_at(blocks, offset, name)).flatten()
}

/// What [`declared_as_data`] finds a type to be.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) enum Data {
    /// A struct (of fields a function may read), maybe beside enums of the same name.
    Struct,
    /// Enums or unions only: a value a function matches on, compares or passes on.
    Enum,
}

/// [`declared_as_data`] of the file `blocks` at the byte `offset`.
fn data_at(blocks: &Blocks, offset: usize, name: &str) -> Option<Data> {
    match declared_at(blocks, offset, name)? {
        d if d.maybe_differentiable => None,
        d if d.data_struct => Some(Data::Struct),
        d if d.data_enum => Some(Data::Enum),
        _ => None,
    }
}

// Input:  `Settings`, `n`, of a file holding `pub struct Settings { scale: f64, n: usize }` (no derive)
// Output: Some("usize")
/// The declared type of the field `field` of the type named `name`, where [`declared_as_data`] finds it a
/// data struct without type parameters and that field's type is a primitive scalar (an integer, `bool`,
/// `f32` or `f64`, named as such): what a function with `order = K` reads a constant struct's scalar field
/// as, where a derive would have said it (`FieldType`); `Self` is the type of the inherent `impl` around
/// the attribute. `None` otherwise.
pub(crate) fn data_field_type(name: &str, field: &str) -> Option<String> {
    call_site(|blocks, offset| data_field_type_at(blocks, offset, name, field)).flatten()
}

/// [`data_field_type`] of the file `blocks` at the byte `offset`.
fn data_field_type_at(blocks: &Blocks, offset: usize, name: &str, field: &str) -> Option<String> {
    // `Self` in a method: the type of the inherent `impl` around the attribute.
    let name = match name {
        "Self" => impl_type_at(blocks, offset)?,
        name => name.to_owned(),
    };
    let declared = declared_at(blocks, offset, &name)?;
    (!declared.maybe_differentiable && declared.data_struct)
        .then(|| declared.scalar_fields.get(field).cloned())
        .flatten()
}

// Input:  `Layer`, `[act]`, of a file holding `#[derive(Differentiable)] struct Layer { w: Vec<f64>,
//         #[no_grad] act: Act }` and `enum Act { Tanh, Relu }`
// Output: Some(NoFloat::Data)
/// What the field at `path` of the struct named `name` (`Self`: the type of the inherent `impl` around the
/// attribute) holds, where the source file declares that struct (and each struct on the path: `inner` of
/// `p.inner.k` of type `Inner`) and the field's declared type holds no float: an integer, a flag, or data
/// (an enum the file declares, a `char`, a `String`). Such a field of a `Differentiable` struct is
/// `#[no_grad]` (the derive refuses it otherwise): a constant of the body, whatever the body does with it.
/// `None` where the file does not show the struct, or the field may hold floats (a float, a type
/// parameter, a struct, a type declared elsewhere).
pub(crate) fn declared_constant_field(name: &str, path: &[String]) -> Option<NoFloat> {
    call_site(|blocks, offset| constant_field_at(blocks, offset, name, path)).flatten()
}

/// [`declared_constant_field`] of the file `blocks` at the byte `offset`.
fn constant_field_at(
    blocks: &Blocks,
    offset: usize,
    name: &str,
    path: &[String],
) -> Option<NoFloat> {
    {
        let mut name = match name {
            "Self" => impl_type_at(blocks, offset)?,
            name => name.to_owned(),
        };
        let (last, outer) = path.split_last()?;
        // Each type named where the struct naming it is declared (`model::Layer`'s `act: Act`, `Act` of
        // `mod model`, though the caller imports only `Layer`).
        let mut module = module_at(blocks, offset);
        let mut declared_type = |name: &str, field: &str| {
            let (declared, at) = declared_in(blocks, &module, name)?;
            let ty = syn::parse_str::<syn::Type>(declared.field_types.get(field)?).ok();
            module = at;
            ty
        };
        for field in outer {
            name = type_last_name(&declared_type(&name, field)?)?;
        }
        let ty = declared_type(&name, last)?;
        no_float(blocks, &module, &ty)
    }
}

// Input:  `Osc`, `x0`, of a file holding `#[derive(Differentiable)] struct Osc { k: f64, x0: [f64; 2] }`
// Output: Some("[f64 ; 2]")
/// The declared type of the field `field` of the struct named `name` (`Self`: the type of the inherent
/// `impl` around the attribute), as tokens, where the source file shows that struct; `None` otherwise.
pub(crate) fn declared_field_type(name: &str, field: &str) -> Option<String> {
    call_site(|blocks, offset| {
        let name = match name {
            "Self" => impl_type_at(blocks, offset)?,
            name => name.to_owned(),
        };
        declared_at(blocks, offset, &name)?
            .field_types
            .get(field)
            .cloned()
    })
    .flatten()
}

/// What a field's declared type that holds no float is ([`declared_constant_field`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum NoFloat {
    /// An integer (`usize`, `i32`, ..).
    Integer,
    /// `bool`.
    Flag,
    /// An enum the file declares, a `char`, a `String`.
    Data,
    /// A `Vec` or an array of integers or flags.
    Integers,
}

/// The last name of the path type `ty` (`Inner` of `inner::Inner<f64>`).
fn type_last_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(tp) if tp.qself.is_none() => tp
            .path
            .segments
            .last()
            .map(|s| crate::naming::unraw(&s.ident)),
        syn::Type::Paren(p) => type_last_name(&p.elem),
        syn::Type::Group(g) => type_last_name(&g.elem),
        _ => None,
    }
}

/// [`NoFloat`] of the declared type `ty` in the file `blocks` at the byte `offset`; `None` where it may
/// hold a float.
fn no_float(blocks: &Blocks, module: &[String], ty: &syn::Type) -> Option<NoFloat> {
    const INTEGERS: [&str; 12] = [
        "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
    ];
    let element = |elem: &syn::Type| match no_float(blocks, module, elem)? {
        NoFloat::Integer | NoFloat::Flag => Some(NoFloat::Integers),
        _ => None,
    };
    match ty {
        syn::Type::Paren(p) => no_float(blocks, module, &p.elem),
        syn::Type::Group(g) => no_float(blocks, module, &g.elem),
        syn::Type::Array(a) => element(&a.elem),
        syn::Type::Path(tp) if tp.qself.is_none() => {
            let last = tp.path.segments.last()?;
            let name = crate::naming::unraw(&last.ident);
            match &last.arguments {
                syn::PathArguments::None if tp.path.segments.len() == 1 => {}
                syn::PathArguments::AngleBracketed(args) if name == "Vec" => {
                    return match args.args.first()? {
                        syn::GenericArgument::Type(elem) if args.args.len() == 1 => element(elem),
                        _ => None,
                    };
                }
                _ => return None,
            }
            if INTEGERS.contains(&name.as_str()) {
                return Some(NoFloat::Integer);
            }
            match name.as_str() {
                "bool" => return Some(NoFloat::Flag),
                "char" | "String" => return Some(NoFloat::Data),
                _ => {}
            }
            // An enum the file declares (and nothing that may make the name a struct of floats).
            let (declared, _) = declared_in(blocks, module, &name)?;
            (declared.data_enum && !declared.a_struct && !declared.maybe_differentiable)
                .then_some(NoFloat::Data)
        }
        _ => None,
    }
}

// Input:  `Particle`, of a file holding `#[derive(Differentiable)] struct Particle { x: f64, v: f64 }`
// Output: true
/// Does the nearest module around the attribute that declares the type `name` declare a struct of that
/// name (with the derive or without)? `false` where the source does not show one.
pub(crate) fn declared_struct(name: &str) -> bool {
    call_site(|blocks, offset| declared_at(blocks, offset, name).is_some_and(|d| d.a_struct))
        .unwrap_or(false)
}

/// The named fields of `fields` whose type is a primitive scalar, by name, with that type's name.
fn scalar_fields(fields: &syn::Fields) -> HashMap<String, String> {
    const SCALARS: [&str; 15] = [
        "f32", "f64", "bool", "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16",
        "i32", "i64", "i128",
    ];
    fields
        .iter()
        .filter_map(|f| {
            let ident = f.ident.as_ref()?;
            let syn::Type::Path(tp) = &f.ty else {
                return None;
            };
            let ty = tp.path.get_ident()?.to_string();
            (tp.qself.is_none() && SCALARS.contains(&ty.as_str()))
                .then(|| (crate::naming::unraw(ident), ty))
        })
        .collect()
}

/// What the file `blocks` declares of the type `name` in the nearest module around the byte `offset` that
/// declares it.
/// A name a module imports (`use super::model::Layer;`, `use crate::model::{Act, Layer as L};`) is what
/// the file declares where the `use` points, followed through re-exports (`pub use`), where that is one
/// item of the file; else (an import from another crate, of two items, a glob's) what the `use` alone
/// shows.
fn declared_at<'a>(blocks: &'a Blocks, offset: usize, name: &str) -> Option<&'a Declared> {
    declared_in(blocks, &module_at(blocks, offset), name).map(|(declared, _)| declared)
}

/// [`declared_at`] from the inline module `module` (outermost first), with the module that declares
/// what it finds (where the names of its fields' types are looked up in turn).
fn declared_in<'a>(
    blocks: &'a Blocks,
    module: &[String],
    name: &str,
) -> Option<(&'a Declared, Vec<String>)> {
    let types = blocks.types();
    let (mut found, mut at) = (0..=module.len()).rev().find_map(|depth| {
        let at = module[..depth].to_vec();
        types.get(&(at.clone(), name.to_owned())).map(|d| (d, at))
    })?;
    // (A bounded number of steps: `use` items may point at each other in a cycle, which rustc rejects.)
    for _ in 0..8 {
        let [(module, name)] = found.imported.as_slice() else {
            break;
        };
        if found.a_struct || found.data_enum {
            break;
        }
        // A `crate::` path in a file that is a module of its crate (`crate::files::m::model::Layer` of
        // the file `m`) names the modules around the file first: the file's own are the path's last.
        let Some((declared, module)) = (0..=module.len()).find_map(|skip| {
            let key = (module[skip..].to_vec(), name.clone());
            types.get(&key).map(|d| (d, key.0))
        }) else {
            break;
        };
        (found, at) = (declared, module);
    }
    Some((found, at))
}

// Input:  `use super::model::{Act, Layer as L};` in `mod train`, `use crate::a::B;`, `use self::m::C;`
// Output: ("Act", ["model"], "Act"), ("L", ["model"], "Layer"), ("B", ["a"], "B"), ("C", ["train", "m"], "C")
/// The names a `use` item in `module` (outermost first) brings, each with the inline module its path names
/// from the file's top and the item's name there. A path of a name alone (`use model::Layer;`, 2018
/// paths) is taken from `module` (an extern crate of that name is not declared in the file, and nothing
/// is found there). Globs (`use model::*;`) bring no names here.
fn use_targets(tree: &syn::UseTree, module: &[String]) -> Vec<(String, Vec<String>, String)> {
    fn walk(
        tree: &syn::UseTree,
        path: Vec<String>,
        out: &mut Vec<(String, Vec<String>, String)>,
    ) -> Option<()> {
        let extend = |name: &Ident| {
            let mut path = path.clone();
            path.push(crate::naming::unraw(name));
            path
        };
        match tree {
            syn::UseTree::Path(p) => {
                let name = crate::naming::unraw(&p.ident);
                let path = match name.as_str() {
                    "self" => path,
                    "super" => {
                        let mut path = path;
                        path.pop()?;
                        path
                    }
                    _ => extend(&p.ident),
                };
                walk(&p.tree, path, out)?;
            }
            syn::UseTree::Name(n) if n.ident != "self" => {
                out.push((
                    crate::naming::unraw(&n.ident),
                    path,
                    crate::naming::unraw(&n.ident),
                ));
            }
            syn::UseTree::Rename(r) if r.ident != "self" => {
                out.push((
                    crate::naming::unraw(&r.rename),
                    path,
                    crate::naming::unraw(&r.ident),
                ));
            }
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    walk(tree, path.clone(), out);
                }
            }
            _ => {}
        }
        Some(())
    }
    let mut out = Vec::new();
    // `crate::..` from the top; `self::..`, `super::..` and a module's name from `module`.
    let (tree, start) = match tree {
        syn::UseTree::Path(p) if p.ident == "crate" => (&*p.tree, Vec::new()),
        _ => (tree, module.to_vec()),
    };
    walk(tree, start, &mut out);
    out
}

/// The names of the inline modules (`mod ml { .. }`) around `offset`, outermost first.
fn module_at(blocks: &Blocks, offset: usize) -> Vec<String> {
    let mut around: Vec<&(usize, usize, bool)> = blocks
        .blocks
        .iter()
        .filter(|(open, close, _)| *open < offset && offset < *close)
        .collect();
    around.sort_by_key(|(open, _, _)| *open);
    around
        .into_iter()
        .filter_map(|(open, _, _)| {
            let start = *blocks.headers.get(open)?;
            let header = blocks.text.get(start..*open)?;
            let mut words = header.split_whitespace().skip_while(|w| *w != "mod");
            words.next()?;
            words
                .next()
                .map(|name| name.trim_start_matches("r#").to_owned())
        })
        .collect()
}

/// The type names that `file`, a parsed source file, declares, by the inline modules they are declared in
/// (outermost first) and name, with what it shows of them; empty where it did not parse (`None`).
fn declared_types(file: Option<&syn::File>) -> HashMap<(Vec<String>, String), Declared> {
    use syn::visit::Visit;
    #[derive(Default)]
    struct Types {
        module: Vec<String>,
        found: HashMap<(Vec<String>, String), Declared>,
    }
    impl Types {
        fn entry(&mut self, ident: &Ident) -> &mut Declared {
            let key = (self.module.clone(), crate::naming::unraw(ident));
            self.found.entry(key).or_default()
        }
    }
    impl<'ast> Visit<'ast> for Types {
        fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
            self.module.push(crate::naming::unraw(&item.ident));
            syn::visit::visit_item_mod(self, item);
            self.module.pop();
        }
        fn visit_item_struct(&mut self, item: &'ast syn::ItemStruct) {
            let entry = self.entry(&item.ident);
            // Two structs of one name in one module (under exclusive `cfg`s): which one is not known.
            entry.field_types = match entry.a_struct {
                true => HashMap::new(),
                false => (item.fields.iter())
                    .filter_map(|f| {
                        let ty = quote::ToTokens::to_token_stream(&f.ty).to_string();
                        Some((crate::naming::unraw(f.ident.as_ref()?), ty))
                    })
                    .collect(),
            };
            entry.a_struct = true;
            if names_differentiable(&item.attrs) {
                entry.maybe_differentiable = true;
            } else if entry.data_struct {
                // Two of one name in one module (under exclusive `cfg`s): which one is not known.
                entry.scalar_fields.clear();
            } else {
                entry.data_struct = true;
                if item.generics.params.is_empty() {
                    entry.scalar_fields = scalar_fields(&item.fields);
                }
            }
            syn::visit::visit_item_struct(self, item);
        }
        fn visit_item_enum(&mut self, item: &'ast syn::ItemEnum) {
            self.entry(&item.ident).data_enum = true;
            syn::visit::visit_item_enum(self, item);
        }
        fn visit_item_union(&mut self, item: &'ast syn::ItemUnion) {
            self.entry(&item.ident).data_enum = true;
            syn::visit::visit_item_union(self, item);
        }
        fn visit_item_type(&mut self, item: &'ast syn::ItemType) {
            self.entry(&item.ident).maybe_differentiable = true;
            syn::visit::visit_item_type(self, item);
        }
        fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
            // What the `use` points at, where the file declares it (`declared_at`).
            for (name, module, item_name) in use_targets(&item.tree, &self.module) {
                let key = (self.module.clone(), name);
                let entry = self.found.entry(key).or_default();
                entry.imported.push((module, item_name));
            }
            syn::visit::visit_item_use(self, item);
        }
        fn visit_use_rename(&mut self, rename: &'ast syn::UseRename) {
            self.entry(&rename.rename).maybe_differentiable = true;
        }
        fn visit_use_name(&mut self, used: &'ast syn::UseName) {
            // `use other::Settings;`: a type of that name from elsewhere, which may derive it.
            self.entry(&used.ident).maybe_differentiable = true;
        }
        fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
            let of_differentiable = item.trait_.as_ref().is_some_and(|(_, path, _)| {
                path.segments
                    .last()
                    .is_some_and(|s| s.ident == "Differentiable")
            });
            if let (true, syn::Type::Path(tp)) = (of_differentiable, &*item.self_ty) {
                if let Some(last) = tp.path.segments.last() {
                    self.entry(&last.ident).maybe_differentiable = true;
                }
            }
            syn::visit::visit_item_impl(self, item);
        }
    }
    let Some(file) = file else {
        return HashMap::new();
    };
    let mut types = Types::default();
    types.visit_file(file);
    types.found
}

// Input:  `helper`, of a file holding `fn helper(x: f64, n: usize) -> f64` in the attribute's module
// Output: Some([false, true])
/// For each parameter of the function `callee` declared among the items of the attribute's own module
/// (a file's top level or an inline `mod { .. }`), whether its type is an integer or `bool`
/// (`usize`, `i32`, ..) or an enum that the file declares (`act: Act`, by value or by reference): a value
/// passed there is no float. `None` where the module declares no function of
/// that name, or more than one, or a body in the file declares one of that name (the caller's own nested
/// `fn`, which a call by that name would reach, may be one), or the source is not at hand. Only the module itself counts, not the
/// modules around it: a name found there is the one a bare call reaches (an import of the same name beside
/// it would not compile), where one found further out might be shadowed by an import.
pub(crate) fn sibling_integer_parameters(callee: &syn::Path) -> Option<Vec<bool>> {
    let names: Vec<String> = callee
        .segments
        .iter()
        .map(|s| crate::naming::unraw(&s.ident))
        .collect();
    if callee.leading_colon.is_some() || callee.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    call_site(|blocks, offset| match names.as_slice() {
        [name] => integer_parameters_at(blocks, offset, name),
        // `Self::series(theta, self.terms)` in an `impl` block: the inherent `impl`s of its type in this
        // module (two inherent functions of one name would not compile, so one found here is the one).
        [ty, name] if ty == "Self" => {
            let ty = impl_type_at(blocks, offset)?;
            integer_parameters_at(blocks, offset, &format!("{ty}::{name}"))
        }
        [ty, name] if ty.starts_with(|c: char| c.is_ascii_uppercase()) => {
            integer_parameters_at(blocks, offset, &format!("{ty}::{name}"))
        }
        // `util::log_factorial(k)`, `super::Model::series(..)`, `self::helper(..)`: the module the path
        // names, from the caller's.
        _ => path_integer_parameters(blocks, offset, &names),
    })
    .flatten()
}

// Input:  `super::Osc::loss_with`, called in `mod tuning` inside `mod smd`, of a file declaring
//         `impl Osc { fn loss_with(k: f64, steps: usize) .. }` in `mod smd`
// Output: Some([false, true])
/// [`sibling_integer_parameters`] of a path of several segments (`util::f`, `self::f`, `super::a::f`),
/// relative to the inline module around `offset`: the one declaration of its last segment in the module
/// the path names, or of its last two as an associated function (`super::Osc::loss_with`:
/// `Osc::loss_with` in the parent). `None` where the path may leave the file (`crate::`, `super::` out of
/// its top) or names a module or function the file does not declare inline.
fn path_integer_parameters(blocks: &Blocks, offset: usize, names: &[String]) -> Option<Vec<bool>> {
    let (name, modules) = names.split_last()?;
    let functions = blocks.functions();
    let one = |module: Vec<String>, callee: String| match functions.get(&(module, callee)) {
        Some(found) if found.len() == 1 => Some(found[0].integers.clone()),
        _ => None,
    };
    let caller = module_at(blocks, offset);
    if let Some(found) = module_of_path(caller.clone(), modules).and_then(|m| one(m, name.clone()))
    {
        return Some(found);
    }
    let (ty, outer) = modules.split_last()?;
    if !ty.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    one(module_of_path(caller, outer)?, format!("{ty}::{name}"))
}

// Input:  the caller's module `["model"]` and the path's modules `["super", "util"]`
// Output: `["util"]`
/// The inline module that the modules of a call's path (`util::f`, `super::util::f`, `self::f`) name from
/// the module `from`; `None` where the path may leave the file (`crate::`: the file may not be the crate's
/// root, `super::` out of its top) or names a type.
fn module_of_path(mut from: Vec<String>, modules: &[String]) -> Option<Vec<String>> {
    for (i, segment) in modules.iter().enumerate() {
        let leading = modules[..i].iter().all(|m| m == "super" || m == "self");
        match segment.as_str() {
            "self" if i == 0 => {}
            "super" if leading => {
                from.pop()?;
            }
            name if name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
                && !["self", "super", "crate"].contains(&name) =>
            {
                from.push(name.to_owned())
            }
            _ => return None,
        }
    }
    Some(from)
}

// Input:  `huber`, for an attribute in `mod huber { use super::*; #[differentiable] fn total(..) }`
// Output: true
/// Is the innermost block around the attribute the body of an inline module named `name` (not a function's
/// body inside it, where `self::` would not reach the function's own items)?
pub(crate) fn in_module_named(name: &str) -> bool {
    call_site(|blocks, offset| {
        let (open, _, _) = blocks
            .blocks
            .iter()
            .filter(|(open, close, _)| *open < offset && offset < *close)
            .max_by_key(|(open, _, _)| *open)?;
        let start = *blocks.headers.get(open)?;
        let header = blocks.text.get(start..*open)?;
        let mut words = header.split_whitespace().skip_while(|w| *w != "mod");
        words.next()?;
        Some(words.next()?.trim_start_matches("r#") == name)
    })
    .flatten()
    .unwrap_or(false)
}

/// The name of the type of the innermost `impl` block around `offset` (`Pendulum` of `impl<T> Pendulum<T>`).
fn impl_type_at(blocks: &Blocks, offset: usize) -> Option<String> {
    let (open, _, _) = blocks
        .blocks
        .iter()
        .filter(|(open, close, _)| *open < offset && offset < *close)
        .max_by_key(|(open, _, _)| *open)
        .filter(|(_, _, is_impl)| *is_impl)?;
    let start = *blocks.headers.get(open)?;
    let header = blocks.text.get(start..*open)?;
    let item = syn::parse_str::<syn::ItemImpl>(&format!("{header} {{}}")).ok()?;
    match &*item.self_ty {
        syn::Type::Path(p) if item.trait_.is_none() => p
            .path
            .segments
            .last()
            .map(|s| crate::naming::unraw(&s.ident)),
        _ => None,
    }
}

/// [`sibling_integer_parameters`] of the file `blocks` at the byte `offset`.
fn integer_parameters_at(blocks: &Blocks, offset: usize, callee: &str) -> Option<Vec<bool>> {
    let functions = blocks.functions();
    let found = sibling_at(functions, blocks, offset, callee)?;
    // An enum the file declares (and that nothing else of the name may make a struct): data, no float.
    let data_enum = |name: &Option<String>| {
        name.as_ref()
            .and_then(|name| declared_at(blocks, offset, name))
            .is_some_and(|d| d.data_enum && !d.a_struct && !d.maybe_differentiable)
    };
    Some(
        (found.integers.iter())
            .zip(&found.type_names)
            .map(|(integer, name)| *integer || data_enum(name))
            .collect(),
    )
}

/// The one declaration of the function `callee` among the items of the module around `offset`, if the
/// file has one and no body declares a function of that name.
fn sibling_at<'a>(
    functions: &'a FunctionsOfModules,
    blocks: &Blocks,
    offset: usize,
    callee: &str,
) -> Option<&'a SiblingFn> {
    let found = functions.get(&(module_at(blocks, offset), callee.to_owned()))?;
    // A function of that name declared in a body (the caller's nested `fn`) may be the one called.
    let nested = functions.get(&(Vec::new(), format!("{{body}}{callee}")));
    match (found.as_slice(), nested) {
        ([one], None) => Some(one),
        _ => None,
    }
}

// Input:  `helper`, of a file holding `fn helper(v: f64) -> f64 { v * v }` in the attribute's module
// Output: true
/// Is `callee`, called by its bare name, a function of the attribute's own module that has no derivatives:
/// declared once among the module's items with no attribute but `doc`, `inline`, `allow` and the like (no
/// `#[differentiable]`, `#[custom_gradient]` or any other that could make derivatives), no body declaring
/// one of that name, no type or `use` of that name in the module or around it, and no `gradient_of`
/// anywhere in the file (a registration could stand in for it)?
/// `false` where the source does not show it. A differentiable function calling such a function with a
/// differentiated argument is the error that says so; a copy of it that names the callee's companion
/// (`shadow.rs`) would only add rustc's "expected type, found function" beside it.
pub(crate) fn plain_sibling(callee: &str) -> bool {
    call_site(|blocks, offset| plain_sibling_at(blocks, offset, callee)).unwrap_or(false)
}

// Input:  `hs`, of a file holding `#[differentiable(order = 2)] fn hs(xs: &[f64], s: f64) -> f64` in the
//         attribute's module
// Output: true
/// Is `callee`, called by its bare name, a function of the attribute's own module declared once with
/// `#[differentiable]` (and no body declaring one of that name)? `false` where the source does not show it.
pub(crate) fn differentiable_sibling_fn(callee: &str) -> bool {
    call_site(|blocks, offset| {
        let functions = blocks.functions();
        sibling_at(functions, blocks, offset, callee).is_some_and(|f| f.differentiable)
    })
    .unwrap_or(false)
}

/// [`plain_sibling`] of the file `blocks` at the byte `offset`.
fn plain_sibling_at(blocks: &Blocks, offset: usize, callee: &str) -> bool {
    let functions = blocks.functions();
    // (A `use` of the name, or a type of it, may bring a registration's stand-in for it.)
    !blocks.text.contains("gradient_of")
        && declared_at(blocks, offset, callee).is_none()
        && sibling_at(functions, blocks, offset, callee).is_some_and(|f| f.plain)
}

/// The functions of `file`, a parsed source file, declared among a module's items, by their module (outermost
/// first) and name: for each declaration, whether each parameter's type is an integer or `bool`. Functions
/// declared in bodies are keyed `{body}name` at the top, so that a name one of them takes is known to be
/// ambiguous. Empty where the file did not parse (`None`).
fn module_functions(file: Option<&syn::File>) -> FunctionsOfModules {
    use syn::visit::Visit;
    const INTEGERS: &[&str] = &[
        "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
        "bool",
    ];
    fn declared(f: &syn::ItemFn) -> SiblingFn {
        SiblingFn {
            integers: integers(&f.sig),
            type_names: type_names(&f.sig),
            plain: f.attrs.iter().all(gives_no_derivatives),
            differentiable: f.attrs.iter().any(|a| {
                a.path()
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "differentiable")
            }),
        }
    }
    fn type_names(sig: &syn::Signature) -> Vec<Option<String>> {
        let bare = |ty: &syn::Type| match ty {
            syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(crate::naming::unraw),
            _ => None,
        };
        sig.inputs
            .iter()
            .map(|input| match input {
                syn::FnArg::Typed(t) => match &*t.ty {
                    syn::Type::Reference(r) if r.mutability.is_none() => bare(&r.elem),
                    other => bare(other),
                },
                syn::FnArg::Receiver(_) => None,
            })
            .collect()
    }
    fn integers(sig: &syn::Signature) -> Vec<bool> {
        sig.inputs
            .iter()
            .map(|input| match input {
                syn::FnArg::Typed(t) => {
                    matches!(&*t.ty, syn::Type::Path(p) if p.qself.is_none()
                        && p.path.get_ident().is_some_and(|i| INTEGERS.iter().any(|n| i == n)))
                }
                syn::FnArg::Receiver(_) => false,
            })
            .collect()
    }
    /// Functions declared in bodies, anywhere.
    struct Nested<'a>(&'a mut FunctionsOfModules);
    impl<'ast> Visit<'ast> for Nested<'_> {
        fn visit_block(&mut self, block: &'ast syn::Block) {
            for stmt in &block.stmts {
                if let syn::Stmt::Item(syn::Item::Fn(f)) = stmt {
                    let key = (
                        Vec::new(),
                        format!("{{body}}{}", crate::naming::unraw(&f.sig.ident)),
                    );
                    self.0.entry(key).or_default().push(declared(f));
                }
            }
            syn::visit::visit_block(self, block);
        }
    }
    fn items(list: &[syn::Item], module: &mut Vec<String>, out: &mut FunctionsOfModules) {
        for item in list {
            match item {
                syn::Item::Fn(f) => {
                    let key = (module.clone(), crate::naming::unraw(&f.sig.ident));
                    out.entry(key).or_default().push(declared(f));
                }
                // An inherent `impl`'s functions, keyed `Type::name`.
                syn::Item::Impl(imp) if imp.trait_.is_none() => {
                    let syn::Type::Path(ty) = &*imp.self_ty else {
                        continue;
                    };
                    let Some(ty) = ty.path.segments.last() else {
                        continue;
                    };
                    for member in &imp.items {
                        if let syn::ImplItem::Fn(f) = member {
                            let name = format!(
                                "{}::{}",
                                crate::naming::unraw(&ty.ident),
                                crate::naming::unraw(&f.sig.ident)
                            );
                            out.entry((module.clone(), name))
                                .or_default()
                                .push(SiblingFn {
                                    integers: integers(&f.sig),
                                    type_names: type_names(&f.sig),
                                    plain: false,
                                    differentiable: false,
                                });
                        }
                    }
                }
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        module.push(crate::naming::unraw(&m.ident));
                        items(inner, module, out);
                        module.pop();
                    }
                }
                _ => {}
            }
        }
    }
    let Some(file) = file else {
        return HashMap::new();
    };
    let mut out = HashMap::new();
    items(&file.items, &mut Vec::new(), &mut out);
    Nested(&mut out).visit_file(file);
    out
}

/// Is `attr` one that gives a function no derivatives: `doc`, `inline`, `allow` (and the other lint
/// levels), `must_use`, `track_caller`, `cold`?
fn gives_no_derivatives(attr: &syn::Attribute) -> bool {
    const INERT: [&str; 10] = [
        "doc",
        "inline",
        "allow",
        "warn",
        "deny",
        "forbid",
        "expect",
        "must_use",
        "track_caller",
        "cold",
    ];
    attr.path()
        .get_ident()
        .is_some_and(|i| INERT.iter().any(|n| i == n))
}

/// Do `attrs` name `Differentiable` anywhere (`#[derive(Clone, Differentiable)]`, `#[cfg_attr(.., derive(
/// autodiff::Differentiable))]`)?
fn names_differentiable(attrs: &[syn::Attribute]) -> bool {
    // (Not a doc comment that mentions the word: `/// Not Differentiable: data.`)
    attrs.iter().filter(|a| !a.path().is_ident("doc")).any(|a| {
        quote::ToTokens::to_token_stream(a)
            .to_string()
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|word| word == "Differentiable")
    })
}

// Input:  (the attribute on `impl B for M`, the file holding `impl A for M { #[differentiable] fn f .. }`)
// Output: [("impl A for M", ["f"])]
/// The `impl`s of a trait for the type written `self_ty` (tokens as `to_string` writes them) that stand
/// before the `impl` block whose attribute is being expanded, in its file: each one's header and the names of
/// its methods with an attribute named `differentiable`. Empty where the source is not at hand, or does not
/// show the attribute right before an `impl`.
pub(crate) fn trait_impls_before(self_ty: &str) -> Vec<(String, Vec<String>)> {
    call_site(|blocks, offset| {
        let text = &blocks.text;
        if !text[offset..].starts_with('#') {
            return Vec::new();
        }
        // The attribute's block: the first that opens after it.
        let Some(own) = blocks
            .blocks
            .iter()
            .filter(|(open, _, _)| *open > offset)
            .min_by_key(|(open, _, _)| *open)
        else {
            return Vec::new();
        };
        if !own.2 {
            return Vec::new();
        }
        let mut found = Vec::new();
        for (open, close, is_impl) in &blocks.blocks {
            let Some(start) = blocks
                .headers
                .get(open)
                .filter(|_| *is_impl && *close < offset)
            else {
                continue;
            };
            let Ok(item) = syn::parse_str::<syn::ItemImpl>(&text[*start..=*close]) else {
                continue;
            };
            let ty = &item.self_ty;
            if item.trait_.is_none() || quote::quote!(#ty).to_string() != self_ty {
                continue;
            }
            let marked = item.items.iter().filter_map(|member| match member {
                syn::ImplItem::Fn(method)
                    if method.attrs.iter().any(|a| {
                        a.path()
                            .segments
                            .last()
                            .is_some_and(|s| s.ident == "differentiable")
                    }) =>
                {
                    Some(method.sig.ident.to_string())
                }
                _ => None,
            });
            let header = text[*start..*open].split_whitespace().collect::<Vec<_>>();
            found.push((header.join(" "), marked.collect()));
        }
        found
    })
    .unwrap_or_default()
}

/// Does `text` begin with an attribute of a function `name`: `#`, then (before any `{`, `}` or `;`, so past
/// other attributes, doc comments, `pub`, `const` and the like) `fn name`?
fn attribute_on(text: &str, name: &str) -> bool {
    if !text.starts_with('#') {
        return false;
    }
    let head = &text[..text.find(['{', '}', ';']).unwrap_or(text.len())];
    head.match_indices("fn").any(|(at, _)| {
        let before_ok = at == 0 || !is_ident_char(head[..at].chars().next_back().unwrap_or(' '));
        let rest = &head[at + 2..];
        let after = rest.trim_start();
        before_ok
            && after.len() < rest.len()
            && after.starts_with(name)
            && !after[name.len()..].starts_with(is_ident_char)
    })
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The byte offset of a 1-based line and a 1-based column counted in characters, in `text` whose lines
/// begin at `line_starts`.
fn offset_of(text: &str, line_starts: &[usize], line: usize, column: usize) -> Option<usize> {
    let start = *line_starts.get(line.checked_sub(1)?)?;
    let rest = &text[start..];
    rest.char_indices()
        .nth(column.checked_sub(1)?)
        .map(|(at, _)| start + at)
}

/// Whether the innermost block that contains `offset` is an `impl` block (`false` at a file's top level).
fn innermost_is_impl(blocks: &[(usize, usize, bool)], offset: usize) -> bool {
    blocks
        .iter()
        .filter(|(open, close, _)| *open < offset && offset < *close)
        .max_by_key(|(open, _, _)| *open)
        .is_some_and(|(_, _, is_impl)| *is_impl)
}

/// Every brace block of `text`, with whether its header (the words before the `{`, at its level, since the
/// last `;`, `{` or `}`, attributes left out) begins with `impl` (after `unsafe` or `default`), and where
/// each header begins, by the offset of its block's `{`. Comments, string, raw string, byte and character
/// literals are skipped, so braces inside them do not count.
fn scan(text: &str) -> Scanned {
    struct Level {
        open: usize,
        is_impl: bool,
        /// Depth of `(` and `[` inside this block, so that `;` in `[f64; 2]` does not end a header.
        nesting: usize,
        /// The first words of the header being read (two suffice).
        words: Vec<String>,
        /// Where the first of them begins.
        header: Option<usize>,
    }
    let header_is_impl = |words: &[String]| {
        let mut words = words.iter().map(String::as_str);
        let mut first = words.next();
        while matches!(first, Some("unsafe" | "default")) {
            first = words.next();
        }
        first == Some("impl")
    };
    let bytes = text.as_bytes();
    let mut blocks = Vec::new();
    let mut headers = HashMap::new();
    let mut stack = vec![Level {
        open: 0,
        is_impl: false,
        nesting: 0,
        words: Vec::new(),
        header: None,
    }];
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let level = stack.last_mut().expect("the file level is never popped");
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = skip_block_comment(bytes, i);
                continue;
            }
            b'"' => {
                i = skip_string(bytes, i + 1);
                continue;
            }
            b'\'' => {
                i = skip_quote(text, i);
                continue;
            }
            b'(' | b'[' => level.nesting += 1,
            b')' | b']' => level.nesting = level.nesting.saturating_sub(1),
            b';' if level.nesting == 0 => {
                level.words.clear();
                level.header = None;
            }
            b'{' => {
                let is_impl = level.nesting == 0 && header_is_impl(&level.words);
                headers.insert(i, level.header.unwrap_or(i));
                level.words.clear();
                level.header = None;
                stack.push(Level {
                    open: i,
                    is_impl,
                    nesting: 0,
                    words: Vec::new(),
                    header: None,
                });
            }
            b'}' => {
                if stack.len() > 1 {
                    let done = stack.pop().expect("checked above");
                    blocks.push((done.open, i, done.is_impl));
                }
                if let Some(level) = stack.last_mut() {
                    level.words.clear();
                    level.header = None;
                }
            }
            c if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => {
                let end = text[i..]
                    .char_indices()
                    .find(|(_, ch)| !(ch.is_alphanumeric() || *ch == '_'))
                    .map_or(bytes.len(), |(n, _)| i + n);
                let word = &text[i..end];
                // Raw strings (`r"..."`, `r#"..."#`, `br".."`, `cr".."`) and byte strings (`b".."`).
                let hashes = bytes[end..].iter().take_while(|b| **b == b'#').count();
                if matches!(word, "r" | "br" | "cr") && bytes.get(end + hashes) == Some(&b'"') {
                    i = skip_raw_string(text, end + hashes + 1, hashes);
                    continue;
                }
                if matches!(word, "b" | "c") && bytes.get(end) == Some(&b'"') {
                    i = skip_string(bytes, end + 1);
                    continue;
                }
                if word == "b" && bytes.get(end) == Some(&b'\'') {
                    i = skip_quote(text, end);
                    continue;
                }
                if level.nesting == 0 && level.words.len() < 2 {
                    level.header = level.header.or(Some(i));
                    level.words.push(word.to_owned());
                }
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    // Blocks left open (a file rustc will reject anyway) end at the end of the text.
    while stack.len() > 1 {
        let open = stack.pop().expect("checked by the loop");
        blocks.push((open.open, bytes.len(), open.is_impl));
    }
    (blocks, headers)
}

/// The offset after the `*/` that closes the (possibly nested) block comment opened at `i`.
fn skip_block_comment(bytes: &[u8], mut i: usize) -> usize {
    let mut depth = 0;
    while i < bytes.len() {
        if bytes[i] == b'/' && bytes.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    bytes.len()
}

/// The offset after the `"` that closes a string whose contents start at `i`.
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The offset after a raw string whose contents start at `i`, closed by `"` and `hashes` times `#`.
fn skip_raw_string(text: &str, i: usize, hashes: usize) -> usize {
    let close = format!("\"{}", "#".repeat(hashes));
    text[i..]
        .find(&close)
        .map_or(text.len(), |n| i + n + close.len())
}

/// At a `'` (offset `i`): the offset after a character literal (`'{'`, `'\''`, `'\u{7b}'`), or after the
/// quote alone where it begins a lifetime or a label (`'a`, `'outer: loop`).
fn skip_quote(text: &str, i: usize) -> usize {
    let rest = &text[i + 1..];
    let mut chars = rest.char_indices();
    match chars.next() {
        Some((_, '\\')) => rest[1..]
            .find('\'')
            .map_or(text.len(), |n| i + 1 + 1 + n + 1),
        Some(_) => match chars.next() {
            Some((at, '\'')) => i + 1 + at + 1,
            _ => i + 1,
        },
        None => text.len(),
    }
}

/// The function `callee` as the source shows it among the items of the module (a file's top level or a
/// `mod { .. }` block) that shows the function whose attribute is being expanded, `caller` (or, for a
/// method, its inherent `impl` block), both with an attribute named `differentiable`; `Self::h` for
/// `callee`, the associated function `h` of the caller's own `impl`: what `struct_whole::first_order` asks whether a callee it passes a
/// field on whole has `__callee_pairs` of. `None` where the source is not at hand, does not show the
/// attribute on `fn caller`, or shows either function other than once there. The function comes with
/// its attributes and signature, its body left out (`{}`): the file is read with every function's body
/// emptied ([`Blocks::signatures`]), most of a parse's cost.
pub(crate) fn differentiable_sibling(caller: &Ident, callee: &str) -> Option<syn::ItemFn> {
    let caller = caller.to_string();
    let found = attribute_site(&caller, |blocks, _| {
        blocks.siblings().find(&caller, callee).map(str::to_owned)
    })??;
    syn::parse_str(&found).ok()
}

/// What [`differentiable_sibling`] looks functions up in, read once per file (a parsed file cannot be
/// kept, its text can): the item lists of the file and of its inline modules.
#[derive(Default, Debug)]
struct Siblings {
    lists: Vec<ItemList>,
}

/// The functions of one item list: free functions, and the functions of each inherent `impl` block.
#[derive(Default, Debug)]
struct ItemList {
    functions: Vec<Sibling>,
    impls: Vec<Vec<Sibling>>,
}

/// One function as the file shows it: its name, whether an attribute named `differentiable` is among
/// its attributes, and its text as a free function (`as_item`), its body left out.
#[derive(Debug)]
struct Sibling {
    name: String,
    differentiable: bool,
    text: String,
}

impl Siblings {
    /// The item lists of the file `text` (with every function's body emptied: [`without_bodies`]).
    fn read(text: &str) -> Self {
        fn differentiable(attrs: &[syn::Attribute]) -> bool {
            attrs.iter().any(|a| {
                a.path()
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "differentiable")
            })
        }
        fn sibling(item: syn::ItemFn) -> Sibling {
            Sibling {
                name: crate::naming::unraw(&item.sig.ident),
                differentiable: differentiable(&item.attrs),
                text: quote::ToTokens::to_token_stream(&item).to_string(),
            }
        }
        // An associated function as the free function it would be (what callers ask of a callee).
        fn as_item(f: &syn::ImplItemFn) -> syn::ItemFn {
            syn::ItemFn {
                attrs: f.attrs.clone(),
                vis: f.vis.clone(),
                sig: f.sig.clone(),
                block: Box::new(f.block.clone()),
            }
        }
        fn lists(items: &[syn::Item], out: &mut Vec<ItemList>) {
            let mut list = ItemList::default();
            for item in items {
                match item {
                    syn::Item::Fn(f) => list.functions.push(sibling(f.clone())),
                    // The methods of an inherent `impl` (a method passing a field on whole, `dot(&self.w,
                    // x)`, calls a function of its module, or an associated function of its own `impl`,
                    // `Self::h(&self.w, x)`).
                    syn::Item::Impl(i) if i.trait_.is_none() => list.impls.push(
                        i.items
                            .iter()
                            .filter_map(|member| match member {
                                syn::ImplItem::Fn(f) => Some(sibling(as_item(f))),
                                _ => None,
                            })
                            .collect(),
                    ),
                    _ => {}
                }
            }
            out.push(list);
            for item in items {
                if let syn::Item::Mod(m) = item {
                    if let Some((_, inner)) = &m.content {
                        lists(inner, out);
                    }
                }
            }
        }
        let mut siblings = Siblings::default();
        if let Ok(file) = syn::parse_file(text) {
            lists(&file.items, &mut siblings.lists);
        }
        siblings
    }

    /// [`differentiable_sibling`]'s answer, as the function's text.
    fn find(&self, caller: &str, callee: &str) -> Option<&str> {
        fn named<'a>(functions: &'a [Sibling], name: &str) -> Vec<&'a Sibling> {
            functions.iter().filter(|f| f.name == name).collect()
        }
        let holding: Vec<&ItemList> = self
            .lists
            .iter()
            .filter(|list| {
                !named(&list.functions, caller).is_empty()
                    || list.impls.iter().any(|i| !named(i, caller).is_empty())
            })
            .collect();
        let [list] = holding.as_slice() else {
            return None;
        };
        let callers = named(&list.functions, caller);
        let in_impls: Vec<(&Sibling, &[Sibling])> = list
            .impls
            .iter()
            .flat_map(|i| named(i, caller).into_iter().map(move |f| (f, &i[..])))
            .collect();
        // `Self::h`: an associated function of the caller's own `impl`.
        if let Some(associated) = callee.strip_prefix("Self::") {
            let ([], [(own, members)]) = (callers.as_slice(), in_impls.as_slice()) else {
                return None;
            };
            return match named(members, associated).as_slice() {
                [found] if own.differentiable && found.differentiable => Some(&found.text),
                _ => None,
            };
        }
        let own = match (callers.as_slice(), in_impls.as_slice()) {
            ([own], []) => *own,
            ([], [(own, _)]) => *own,
            _ => return None,
        };
        match named(&list.functions, callee).as_slice() {
            [found] if own.differentiable && found.differentiable => Some(&found.text),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks of `source` and the offset of its first `#[here]`.
    fn here(source: &str) -> (Blocks, usize) {
        let offset = source.find("#[here]").expect("the test marks a position");
        (Blocks::new(source.to_owned()), offset)
    }

    /// [`data_at`] of `name` at the first `#[here]` of `source`.
    fn data_here(source: &str, name: &str) -> Option<Data> {
        let (blocks, offset) = here(source);
        data_at(&blocks, offset, name)
    }

    #[test]
    fn function_bodies_declaring_no_item_are_emptied_before_the_declarations_are_parsed() {
        let text = "struct P { a: f64 }\n#[differentiable(order = 2)]\npub(crate) fn f<F: Fn(f64) -> f64>(p: &P, g: F) -> f64 where F: Copy { let c = |x: f64| { x * 2.0 }; g(p.a) + c(1.0) }\n\
                    impl P { pub const fn get(&self) -> f64 { self.a } }\n\
                    mod m { unsafe extern \"C\" fn h() { if true { } } }\n\
                    fn g() { struct Q { b: f64 } let q = Q { b: 1.0 }; }\n\
                    fn k() { // uses a `use` in a comment: kept\n }\n\
                    trait T { fn d(&self) -> f64 { 1.0 } }\nconst C: P = P { a: 1.0 };";
        let blocks = Blocks::new(text.to_owned());
        let emptied = without_plain_bodies(text, &blocks.blocks, &blocks.headers);
        assert_eq!(
            emptied,
            "struct P { a: f64 }\n#[differentiable(order = 2)]\npub(crate) fn f<F: Fn(f64) -> f64>(p: &P, g: F) -> f64 where F: Copy {}\n\
             impl P { pub const fn get(&self) -> f64 {} }\n\
             mod m { unsafe extern \"C\" fn h() {} }\n\
             fn g() { struct Q { b: f64 } let q = Q { b: 1.0 }; }\n\
             fn k() { // uses a `use` in a comment: kept\n }\n\
             trait T { fn d(&self) -> f64 {} }\nconst C: P = P { a: 1.0 };"
        );
        // What is read from it is what the whole text gives.
        let whole = syn::parse_file(text).ok();
        let parsed = syn::parse_file(&emptied).ok();
        assert!(parsed.is_some());
        assert_eq!(
            declared_types(parsed.as_ref()),
            declared_types(whole.as_ref())
        );
        assert_eq!(
            module_functions(parsed.as_ref()),
            module_functions(whole.as_ref())
        );
        // Every body emptied, for the signatures alone.
        assert_eq!(
            without_bodies(text, &blocks.blocks, &blocks.headers, false),
            "struct P { a: f64 }\n#[differentiable(order = 2)]\npub(crate) fn f<F: Fn(f64) -> f64>(p: &P, g: F) -> f64 where F: Copy {}\n\
             impl P { pub const fn get(&self) -> f64 {} }\n\
             mod m { unsafe extern \"C\" fn h() {} }\n\
             fn g() {}\n\
             fn k() {}\n\
             trait T { fn d(&self) -> f64 {} }\nconst C: P = P { a: 1.0 };"
        );
    }

    #[test]
    fn siblings_are_found_in_the_callers_item_list() {
        let text = "#[differentiable] fn dot(a: &[f64], b: &[f64]) -> f64 { a[0] * b[0] }\n\
                    #[differentiable] fn pred(m: &M, x: &[f64]) -> f64 { dot(&m.w, x) }\n\
                    fn plain(a: &[f64]) -> f64 { a[0] }\n\
                    #[differentiable] fn uses_plain(m: &M) -> f64 { plain(&m.w) }\n\
                    impl M {\n\
                        #[differentiable(wrt(self))] fn p(&self, x: &[f64]) -> f64 { Self::h(&self.w, x) + dot(&self.w, x) }\n\
                        #[differentiable] fn h(a: &[f64], x: &[f64]) -> f64 { a[0] * x[0] }\n\
                    }\n\
                    mod inner { #[differentiable] fn q(m: &M) -> f64 { dot(&m.w, &m.w) } }\n\
                    mod twice { #[differentiable] fn r(m: &M) -> f64 { g(&m.w) } \
                                #[differentiable] fn g(a: &[f64]) -> f64 { a[0] } \
                                #[differentiable] fn g(a: &[f64]) -> f64 { a[1] } }";
        let blocks = Blocks::new(text.to_owned());
        let siblings = blocks.siblings();
        let found = |caller: &str, callee: &str| {
            siblings.find(caller, callee).map(|f| {
                syn::parse_str::<syn::ItemFn>(f)
                    .expect("an item")
                    .sig
                    .ident
                    .to_string()
            })
        };
        assert_eq!(found("pred", "dot").as_deref(), Some("dot"));
        assert_eq!(found("p", "dot").as_deref(), Some("dot"));
        assert_eq!(found("p", "Self::h").as_deref(), Some("h"));
        // Without `#[differentiable]`, in another module, or declared twice: none.
        assert_eq!(found("uses_plain", "plain"), None);
        assert_eq!(found("q", "dot"), None);
        assert_eq!(found("r", "g"), None);
        assert_eq!(found("pred", "Self::h"), None);
        // The body is left out.
        let dot = siblings.find("pred", "dot").expect("found");
        assert!(!dot.contains("a [0]"), "{dot}");
    }

    #[test]
    fn types_declared_without_the_derive_are_data() {
        let file = "/// Not Differentiable: data.\n pub struct Settings { scale: f64, n: usize } \
                    #[derive(Clone, Copy)] enum Mode { A, B } \
                    #[derive(Clone, autodiff::Differentiable)] struct Mlp { w: Vec<f64> } \
                    #[cfg_attr(all(), derive(Differentiable))] struct Maybe { a: f64 } \
                    struct ByHand { a: f64 } impl Differentiable for ByHand {} \
                    struct Aliased; type Real = Aliased; use other::Imported; \
                    #[here] fn f() {}";
        assert_eq!(data_here(file, "Settings"), Some(Data::Struct));
        assert_eq!(data_here(file, "Mode"), Some(Data::Enum));
        for name in ["Mlp", "Maybe", "ByHand", "Real", "Imported", "Unknown"] {
            assert_eq!(data_here(file, name), None, "{name}");
        }
    }

    #[test]
    fn the_scalar_fields_of_a_data_struct_have_their_declared_types() {
        let field = |source: &str, name: &str, field: &str| {
            let (blocks, offset) = here(source);
            data_field_type_at(&blocks, offset, name, field)
        };
        let file = "pub struct Settings { scale: f64, pub n: usize, on: bool, w: Vec<f64>, \
                    m: std::primitive::usize, r#type: i32 } #[here] fn f() {}";
        assert_eq!(field(file, "Settings", "scale"), Some("f64".into()));
        assert_eq!(field(file, "Settings", "n"), Some("usize".into()));
        assert_eq!(field(file, "Settings", "on"), Some("bool".into()));
        assert_eq!(field(file, "Settings", "type"), Some("i32".into()));
        // Not a primitive scalar named as such, or no such field.
        for name in ["w", "m", "missing"] {
            assert_eq!(field(file, "Settings", name), None, "{name}");
        }
        // `Self`: the inherent `impl` around the attribute.
        let method = "struct Grid { n: usize } impl Grid { #[here] fn e(&self) {} }";
        assert_eq!(field(method, "Self", "n"), Some("usize".into()));
        // A generic struct, a derive, an import, two declarations of one name: not known.
        for source in [
            "struct Grid<T> { n: usize, h: T } #[here] fn f() {}",
            "#[derive(Differentiable)] struct Grid { n: usize } #[here] fn f() {}",
            "use other::Grid; #[here] fn f() {}",
            "#[cfg(a)] struct Grid { n: usize } #[cfg(not(a))] struct Grid { n: u8 } #[here] fn f() {}",
            "struct Grid { n: usize } impl Trait for Grid { #[here] fn e(&self) {} }",
        ] {
            let name = if source.contains("impl Trait") { "Self" } else { "Grid" };
            assert_eq!(field(source, name, "n"), None, "{source}");
        }
    }

    #[test]
    fn functions_without_derivatives_of_the_same_module() {
        let plain = |source: &str| {
            let (blocks, offset) = here(source);
            plain_sibling_at(&blocks, offset, "helper")
        };
        assert!(plain("fn helper(v: f64) -> f64 { v } #[here] fn f() {}"));
        assert!(plain(
            "/// Doc.\n#[inline] #[allow(dead_code)] fn helper(v: f64) -> f64 { v } #[here] fn f() {}"
        ));
        let differentiable = |source: &str| {
            let (blocks, offset) = here(source);
            sibling_at(blocks.functions(), &blocks, offset, "helper")
                .is_some_and(|f| f.differentiable)
        };
        assert!(differentiable(
            "#[differentiable(order = 2)] fn helper(v: f64) -> f64 { v } #[here] fn f() {}"
        ));
        assert!(differentiable(
            "#[autodiff::differentiable] fn helper(v: f64) -> f64 { v } #[here] fn f() {}"
        ));
        assert!(!differentiable(
            "fn helper(v: f64) -> f64 { v } #[here] fn f() {}"
        ));
        for source in [
            // Derivatives of its own, or maybe (another attribute).
            "#[differentiable] fn helper(v: f64) -> f64 { v } #[here] fn f() {}",
            "#[autodiff::custom_gradient] fn helper(v: f64) -> f64 { v } #[here] fn f() {}",
            "#[my_attribute] fn helper(v: f64) -> f64 { v } #[here] fn f() {}",
            // A registration in the file, a `use` or a type of the name.
            "fn helper(v: f64) -> f64 { v } #[gradient_of(helper)] fn g() {} #[here] fn f() {}",
            "fn helper(v: f64) -> f64 { v } use regs::helper; #[here] fn f() {}",
            // Another module's, or one declared in a body.
            "mod m { fn helper(v: f64) -> f64 { v } } #[here] fn f() {}",
            "fn helper(v: f64) -> f64 { v } #[here] fn f() { fn helper(v: f64) -> f64 { v } }",
            "#[here] fn f() {}",
        ] {
            assert!(!plain(source), "{source}");
        }
    }

    /// [`constant_field_at`] of the field `path` of `name` at the first `#[here]` of `source`.
    fn constant_here(source: &str, name: &str, path: &[&str]) -> Option<NoFloat> {
        let (blocks, offset) = here(source);
        let path: Vec<String> = path.iter().map(ToString::to_string).collect();
        constant_field_at(&blocks, offset, name, &path)
    }

    #[test]
    fn fields_that_hold_no_float_by_their_declarations() {
        let source = "enum Act { Tanh, Relu } \
                      #[derive(Differentiable)] struct Layer { w: Vec<f64>, b: f64, #[no_grad] act: Act, \
                          #[no_grad] n: usize, #[no_grad] on: bool, #[no_grad] name: String, \
                          #[no_grad] idx: Vec<usize>, #[no_grad] s: f64, #[no_grad] other: Other } \
                      #[derive(Differentiable)] struct Net { out: Layer, #[no_grad] k: u32 } \
                      #[here] fn f() {}";
        assert_eq!(
            constant_here(source, "Layer", &["act"]),
            Some(NoFloat::Data)
        );
        assert_eq!(
            constant_here(source, "Layer", &["n"]),
            Some(NoFloat::Integer)
        );
        assert_eq!(constant_here(source, "Layer", &["on"]), Some(NoFloat::Flag));
        assert_eq!(
            constant_here(source, "Layer", &["name"]),
            Some(NoFloat::Data)
        );
        assert_eq!(
            constant_here(source, "Layer", &["idx"]),
            Some(NoFloat::Integers)
        );
        // Floats, a type the file does not declare, a field it does not show: not known to hold none.
        assert_eq!(constant_here(source, "Layer", &["w"]), None);
        assert_eq!(constant_here(source, "Layer", &["s"]), None);
        assert_eq!(constant_here(source, "Layer", &["other"]), None);
        assert_eq!(constant_here(source, "Layer", &["missing"]), None);
        // Through a nested struct.
        assert_eq!(
            constant_here(source, "Net", &["out", "act"]),
            Some(NoFloat::Data)
        );
        assert_eq!(constant_here(source, "Net", &["k"]), Some(NoFloat::Integer));
        assert_eq!(constant_here(source, "Net", &["out", "b"]), None);
        // `Self` in an inherent `impl` of the struct.
        let method = "enum Act { A } struct Layer { #[no_grad] act: Act } \
                      impl Layer { #[here] fn f(&self) {} }";
        assert_eq!(constant_here(method, "Self", &["act"]), Some(NoFloat::Data));
        // A struct imported by a `use` of a module of the file, its field's type named there.
        let imported = "use model::Layer; mod model { pub enum Act { A } \
                        pub struct Layer { pub act: Act } } #[here] fn f() {}";
        assert_eq!(
            constant_here(imported, "Layer", &["act"]),
            Some(NoFloat::Data)
        );
        let nested =
            "mod model { pub enum Act { A } pub struct Layer { pub act: Act, pub w: f64 } } \
                      mod train { use super::model::{Layer as L}; #[here] fn f() {} }";
        assert_eq!(constant_here(nested, "L", &["act"]), Some(NoFloat::Data));
        assert_eq!(constant_here(nested, "L", &["w"]), None);
        let by_crate =
            "mod a { pub mod model { pub enum Act { A } pub struct Layer { pub act: Act } } \
                        pub use self::model::Layer; } \
                        mod train { use crate::a::Layer; #[here] fn f() {} }";
        assert_eq!(
            constant_here(by_crate, "Layer", &["act"]),
            Some(NoFloat::Data)
        );
        // From another crate, by a glob, or two of one name: not shown.
        // A `crate::` path of a file that is a module of its crate, through the modules around the file.
        let in_a_module = "mod model { pub enum Act { A } pub struct Layer { pub act: Act } } \
                           mod train { use crate::files::this::model::Layer; #[here] fn f() {} }";
        assert_eq!(
            constant_here(in_a_module, "Layer", &["act"]),
            Some(NoFloat::Data)
        );
        let other = "use other::Layer; enum Act { A } #[here] fn f() {}";
        assert_eq!(constant_here(other, "Layer", &["act"]), None);
        let glob = "use model::*; mod model { pub enum Act { A } \
                    pub struct Layer { pub act: Act } } #[here] fn f() {}";
        assert_eq!(constant_here(glob, "Layer", &["act"]), None);
    }

    /// [`integer_parameters_at`] of `callee` at the first `#[here]` of `source`.
    fn integers_here(source: &str, callee: &str) -> Option<Vec<bool>> {
        let (blocks, offset) = here(source);
        integer_parameters_at(&blocks, offset, callee)
    }

    #[test]
    fn parameters_of_an_enum_the_file_declares_hold_no_float() {
        let source = "enum Act { A, B } struct Layer { w: f64 } \
                      fn leak(act: Act, by_ref: &Act, x: f64, l: &Layer, other: Other) -> f64 { x } \
                      #[here] fn g() {}";
        assert_eq!(
            integers_here(source, "leak"),
            Some(vec![true, true, false, false, false])
        );
    }

    #[test]
    fn integer_parameters_of_functions_of_the_same_module() {
        let top = "fn helper(x: f64, n: usize, flag: bool, s: &[f64], k: i32) -> f64 { x } \
                   #[here] fn g() {}";
        assert_eq!(
            integers_here(top, "helper"),
            Some(vec![false, true, true, false, true])
        );
        let inner = "fn helper(x: f64) {} mod m { fn helper(x: usize) {} #[here] fn f() {} }";
        assert_eq!(integers_here(inner, "helper"), Some(vec![true]));
        // Only the module itself: not the one around it, whose name an import may shadow.
        assert_eq!(
            integers_here("fn h(n: usize) {} mod m { #[here] fn f() {} }", "h"),
            None
        );
        // A function of that name in a body may be the one a call reaches.
        assert_eq!(
            integers_here("fn h(n: usize) {} #[here] fn f() { fn h(x: f64) {} }", "h"),
            None
        );
        assert_eq!(integers_here("#[here] fn f() {}", "missing"), None);
        // Associated functions of an inherent `impl`, keyed by the type.
        let methods =
            "impl<T> Swing<T> { fn series(x: T, n: usize) -> T { x } #[here] fn f(&self) {} }";
        assert_eq!(
            integers_here(methods, "Swing::series"),
            Some(vec![false, true])
        );
        let (blocks, offset) = here(methods);
        assert_eq!(impl_type_at(&blocks, offset).as_deref(), Some("Swing"));
    }

    #[test]
    fn the_nearest_module_declaring_a_name_decides() {
        let file = "struct Data { a: f64 } \
                    mod derived { #[derive(Differentiable)] struct Data { a: f64 } #[here] fn f() {} } \
                    mod plain { fn g() {} }";
        assert_eq!(data_here(file, "Data"), None);
        let file = "#[derive(Differentiable)] struct Data { a: f64 } \
                    mod plain { struct Data { a: f64 } mod inner { use super::*; #[here] fn f() {} } }";
        assert_eq!(data_here(file, "Data"), Some(Data::Struct));
        // A sibling module's declaration does not count.
        let file = "mod a { struct Data { a: f64 } } mod b { #[here] fn f() {} }";
        assert_eq!(data_here(file, "Data"), None);
        // Two declarations of one name in a module, one deriving: it may be a parameter struct.
        let file = "struct Data; fn h() { #[derive(Differentiable)] struct Data { a: f64 } } #[here] fn f() {}";
        assert_eq!(data_here(file, "Data"), None);
    }

    /// Whether the `#` of the first `#[here]` in `source` stands inside an `impl` block.
    fn at_marker(source: &str) -> bool {
        let offset = source.find("#[here]").expect("the test marks a position");
        innermost_is_impl(&scan(source).0, offset)
    }

    #[test]
    fn attribute_paths_as_written() {
        assert_eq!(attribute_path("#[ad] fn f()").as_deref(), Some("ad"));
        assert_eq!(
            attribute_path("#[ autodiff :: differentiable (order = 2)] fn f()").as_deref(),
            Some("autodiff::differentiable")
        );
        assert_eq!(attribute_path("fn f()"), None);
    }

    #[test]
    fn items_at_the_top_level_and_in_modules_are_free() {
        assert!(!at_marker("#[here] fn f() {}"));
        assert!(!at_marker("mod m { use super::*; #[here] fn f() {} }"));
        assert!(!at_marker("impl A { fn g() {} } #[here] fn f() {}"));
        assert!(!at_marker("const _: () = { #[here] fn f() {} };"));
    }

    #[test]
    fn associated_functions_are_in_an_impl() {
        assert!(at_marker(
            "impl Model { #[here] fn energy(a: f64) -> f64 { a } }"
        ));
        assert!(at_marker(
            "impl<T: Float> Spring<T> where [T; 2]: Copy { fn a() {} #[here] fn b(x: T) {} }"
        ));
        assert!(at_marker(
            "#[cfg(all())] unsafe impl A { #[here] fn f() {} }"
        ));
        assert!(at_marker(
            "mod m { struct A; impl A { #[here] fn f() {} } }"
        ));
    }

    /// The trait's block innermost around the first `#[here]` in `source`, if any: `impl ..` or `trait ..`
    /// and its header.
    fn trait_block_at_marker(source: &str) -> Option<String> {
        let offset = source.find("#[here]").expect("the test marks a position");
        let (blocks, headers) = scan(source);
        let (open, _, _) = blocks
            .iter()
            .filter(|(open, close, _)| *open < offset && offset < *close)
            .max_by_key(|(open, _, _)| *open)?;
        match trait_block(source[headers[open]..*open].trim())? {
            TraitBlock::Impl(header) => Some(format!("impl: {header}")),
            TraitBlock::Definition(header) => Some(format!("trait: {header}")),
        }
    }

    #[test]
    fn trait_blocks_are_told_from_inherent_impls() {
        assert_eq!(
            trait_block_at_marker("impl Energy for Spring { #[here] fn e(&self) {} }").as_deref(),
            Some("impl: impl Energy for Spring")
        );
        assert_eq!(
            trait_block_at_marker(
                "struct A; #[cfg(all())] /// doc\n impl<T: Float> m::Energy<T> for Model<T> where T: Copy { #[here] fn e() {} }"
            )
            .as_deref(),
            Some("impl: impl<T: Float> m::Energy<T> for Model<T> where T: Copy")
        );
        assert_eq!(
            trait_block_at_marker("#[differentiable] impl A for B { #[here] fn e() {} }")
                .as_deref(),
            Some("impl: impl A for B")
        );
        assert_eq!(
            trait_block_at_marker("pub(crate) trait Energy: Sized { #[here] fn e(&self) {} }")
                .as_deref(),
            Some("trait: pub(crate) trait Energy: Sized")
        );
        assert!(trait_block_at_marker("impl Model { #[here] fn e() {} }").is_none());
        assert!(trait_block_at_marker(
            "impl<F: for<'a> Fn(&'a f64)> Model<F> where for<'b> &'b F: Copy { #[here] fn e() {} }"
        )
        .is_none());
        assert!(trait_block_at_marker("trait A { fn g() { #[here] fn e() {} } }").is_none());
    }

    #[test]
    fn a_function_nested_in_a_method_body_is_free() {
        assert!(!at_marker("impl A { fn g() { #[here] fn f() {} } }"));
        assert!(!at_marker(
            "fn g() -> impl Fn() { #[here] fn f() {} || () }"
        ));
    }

    #[test]
    fn braces_in_comments_and_literals_do_not_count() {
        let source = r####"
            // impl X {
            /* { /* nested } */ } */
            const S: &str = "impl A { \" }";
            const R: &str = r#"impl A { "# ;
            const B: &[u8] = b"{";
            const C: char = '{';
            const D: char = '\'';
            fn l<'a>(x: &'a str) -> &'a str { 'outer: loop { break 'outer x; } }
            impl Real { fn g() { let _ = '}'; } #[here] fn f() {} }
        "####;
        assert!(at_marker(source));
        let source = source.replace("impl Real", "mod real");
        assert!(!at_marker(&source));
    }

    #[test]
    fn the_attribute_must_stand_on_the_function_named() {
        assert!(attribute_on(
            "#[differentiable]\n    fn energy(a: f64)",
            "energy"
        ));
        assert!(attribute_on(
            "#[differentiable(order = 2)] /// doc\n #[inline] pub(crate) fn energy<T>(a: T)",
            "energy"
        ));
        assert!(!attribute_on(
            "#[differentiable] fn energy2(a: f64)",
            "energy"
        ));
        assert!(!attribute_on(
            "#[differentiable] fn user(a: f64) { fn energy() {} }",
            "energy"
        ));
        assert!(!attribute_on("differentiable] fn energy(a: f64)", "energy"));
        assert!(!attribute_on("#[differentiable] fnenergy", "energy"));
    }

    #[test]
    fn positions_are_lines_and_character_columns() {
        let text = "ab\nµ#x\n";
        let blocks = Blocks::new(text.to_owned());
        let at = |line, column| offset_of(text, &blocks.line_starts, line, column);
        assert_eq!(at(1, 1), Some(0));
        assert_eq!(at(2, 2), Some(5));
        assert_eq!(&text[5..6], "#");
        assert_eq!(at(3, 1), None);
        assert_eq!(at(9, 1), None);
        assert_eq!(at(0, 1), None);
    }
}
