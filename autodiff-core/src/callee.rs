//! How a call in generated code finds its callee's derivatives (`autodiff-macros/src/companion.rs`).
//!
//! A call `f(x)` or `p::f(x)` in a differentiable body reaches the companion type that
//! `#[differentiable]`, `#[custom_gradient]` or `#[gradient_of]` emits under the function's name, through
//! [`derivative_of!`](crate::derivative_of). Where there is none, the macro falls back on a type of its
//! own, whose inherent `__autodiff_lookup` gives [`NoDerivative`] where every companion gets [`Found`]
//! from [`Lookup`]; [`require_derivative`] then fails with [`HasDerivative`]'s message, the one error the
//! user sees, at the call. A registration by path (`#[gradient_of(libm::erf)]`) is found through a method
//! on [`Site`] that the registration's own trait adds, preferred over the macro's fallback by method
//! resolution.

/// The companion type of the function at `path` (`f`, `p::f`), for a call of its derivative `item`
/// (`vjp` or `jvp`) with one argument per `_`; with a third argument, the method of [`Site`] through which
/// a `#[gradient_of(path)]` registration in scope is found first.
///
/// ```text
/// derivative_of!(libm::erf, vjp(_, _), __autodiff_gradient_of__libm__erf).vjp(x, d_ret)
/// ```
///
/// After `; through`, the positions of the call's differentiated arguments: a compile-time check that the
/// callee differentiates through the parameters there ([`Through`], [`require_through`]).
///
/// The callee's path is imported under a name of the macro's own, beside a glob import of a fallback
/// type of the same name: an explicit import shadows a glob, so the fallback is used only when the path
/// has no companion type. The fallback's `item` takes any arguments and gives any result, so that the
/// one error at the call is [`require_derivative`]'s.
#[doc(hidden)]
#[macro_export]
macro_rules! derivative_of {
    // Without the error where there are none: for a call of the hidden sweeps that calls the callee as
    // written where `found_of!` says it has no derivatives (`autodiff-macros/src/maybe.rs`). The
    // fallback's item takes arguments of the given types (`impl Sized` mostly) and never returns (`!`),
    // so that it takes the type of the code it stands in.
    // With `<G0, ..>`, the item takes as many generic parameters: for a call with a turbofish
    // (`gbump::<f64>(..)`), which the companion's item takes.
    (@unchecked $path:path, $item:ident($($argument:ty),*) $(<$($generic:ident),*>)? $(, $registered:ident)?) => {{
        #[allow(unused_imports)]
        use $path as __callee;
        $crate::no_derivative! {
            impl __callee {
                #[allow(clippy::too_many_arguments, clippy::extra_unused_type_parameters)]
                pub fn $item$(<$($generic),*>)?(self, $(_: $argument),*) -> ! {
                    ::core::unreachable!()
                }
            }
        }
        $crate::derivative_of!(@found __callee $(, $registered)?)
    }};
    ($path:path, $item:ident($($argument:tt),*) $(, $registered:ident)? $(; through $($position:literal),+)?) => {{
        #[allow(unused_imports)]
        use $path as __callee;
        $crate::no_derivative! {
            impl __callee {
                #[allow(clippy::too_many_arguments)]
                pub fn $item<R>(self, $($argument: impl ::core::marker::Sized),*) -> R {
                    ::core::unreachable!()
                }
            }
        }
        let __found = $crate::derivative_of!(@found __callee $(, $registered)?);
        $crate::private::require_derivative((&__found).__autodiff_lookup());
        $($(
            $crate::private::require_through::<{
                #[allow(unused_imports)]
                use $crate::private::Through as _;
                $crate::private::through(__callee::__AUTODIFF_THROUGH, $position)
            }>();
        )+)?
        __found
    }};
    // The companion `__callee` names, or what a registration found by `registered` gives.
    (@found $callee:ident $(, $registered:ident)?) => {{
        $(
            #[allow(non_snake_case)]
            trait __Registered {
                fn $registered(&self) -> $callee;
            }
            #[allow(non_snake_case)]
            impl __Registered for &$crate::private::Site {
                #[inline(always)]
                fn $registered(&self) -> $callee {
                    $callee {}
                }
            }
        )?
        let __found = $callee {};
        $(let __found = (&$crate::private::Site).$registered();)?
        __found
    }};
}

/// The fallback every call site's lookup of a callee declares beside `use path as __callee`: a module
/// `__no_derivative` of a type `__callee` whose inherent `__autodiff_lookup` gives [`NoDerivative`], with
/// `items` (more impls of it), glob-imported, so that the explicit import shadows it where `path` has a
/// companion; and [`Lookup`] in scope, which gives a companion [`Found`].
#[doc(hidden)]
#[macro_export]
macro_rules! no_derivative {
    ($($items:item)*) => {
        #[allow(dead_code, non_camel_case_types, unreachable_code)]
        mod __no_derivative {
            pub struct __callee {}
            impl __callee {
                #[inline(always)]
                pub fn __autodiff_lookup(&self) -> $crate::private::NoDerivative {
                    $crate::private::NoDerivative
                }
            }
            $($items)*
        }
        #[allow(unused_imports)]
        use __no_derivative::*;
        #[allow(unused_imports)]
        use $crate::private::Lookup as _;
    };
}

/// Whether the function at `path` has derivatives (its companion, or a `#[gradient_of(path)]`
/// registration found by `registered`), as a constant `bool`, found as
/// [`derivative_of!`](crate::derivative_of) finds them but without its error: the hidden `__vjp_all` of a
/// function that passes a parameter outside its `wrt(..)` to `path` calls `path` as written where this is
/// `false`. Usable in a `const`.
#[doc(hidden)]
#[macro_export]
macro_rules! found_of {
    ($path:path $(, $registered:ident)?) => {{
        #[allow(unused_imports)]
        use $path as __callee;
        $crate::no_derivative! {}
        $crate::private::found(&|| {
            let __found = $crate::derivative_of!(@found __callee $(, $registered)?);
            (&__found).__autodiff_lookup()
        })
    }};
}

/// Whether the function at `path` has derivatives ([`found_of!`](crate::found_of), with `registered` as
/// there) and differentiates through its parameter at `position` ([`Through`]): a constant `bool`,
/// usable in a `const`.
#[doc(hidden)]
#[macro_export]
macro_rules! through_of {
    ($path:path $(, $registered:ident)?; $position:expr) => {
        $crate::found_of!($path $(, $registered)?) && $crate::through_of!(@slot $path, $position)
    };
    (@slot $path:path, $position:expr) => {{
        #[allow(unused_imports)]
        use $path as __callee;
        #[allow(dead_code, non_camel_case_types)]
        mod __no_companion {
            pub struct __callee {}
        }
        #[allow(unused_imports)]
        use __no_companion::*;
        #[allow(unused_imports)]
        use $crate::private::Through as _;
        $crate::private::through(__callee::__AUTODIFF_THROUGH, $position)
    }};
}

/// A call `g(a, b)` inside the closure of a `#[custom_gradient]` function: `g`'s own custom gradient where
/// `g` is a `#[custom_gradient]` function of float scalars, else `g` itself (its forward code).
///
/// At first order the closure runs on floats and this is the call as written. At `order = K` it runs on
/// dual numbers (the closure is differentiated through the values it captures), and there the tangent of
/// a nested custom function's value comes from its closure, not its forward code, as API.md promises:
/// the companion of a custom function has an inherent `in_closure_kind` that gives itself, whose
/// `in_closure` expands the value with the closure's gradient as its derivative (`custom.rs`, exact up
/// to `order = 3`); every other path resolves to [`InClosure`]'s [`PlainCall`], which calls `g`. The
/// fallback type stands for a function without a companion (a plain helper), as in
/// [`derivative_of!`](crate::derivative_of).
///
/// ```text
/// in_closure!(g, |__a0, __a1| g(__a0, __a1), (a, b))
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! in_closure {
    ($path:path, |$($a:ident),*| $call:expr, ($($argument:expr),*)) => {{
        #[allow(unused_imports)]
        use $path as __callee;
        #[allow(dead_code, non_camel_case_types)]
        mod __plain_callee {
            pub struct __callee {}
        }
        #[allow(unused_imports)]
        use __plain_callee::*;
        #[allow(unused_imports)]
        use $crate::private::InClosure as _;
        (__callee {}).in_closure_kind().in_closure(|($($a,)*)| $call, ($($argument,)*))
    }};
}

/// The call as written, for a callee inside a custom gradient's closure that is not a custom function of
/// float scalars ([`in_closure!`](crate::in_closure)).
pub struct PlainCall;

impl PlainCall {
    /// `plain(arguments)`.
    #[inline(always)]
    pub fn in_closure<A, R>(self, plain: impl FnOnce(A) -> R, arguments: A) -> R {
        plain(arguments)
    }
}

/// Gives every type [`PlainCall`], unless it has an inherent `in_closure_kind` (the companion of a
/// `#[custom_gradient]` function of float scalars).
pub trait InClosure {
    /// [`PlainCall`].
    #[inline(always)]
    fn in_closure_kind(&self) -> PlainCall {
        PlainCall
    }
}

impl<T: ?Sized> InClosure for T {}

/// The companion of the generic copy of the function at `path`, for a call of its `item` (`call_on`, `vjp`,
/// ...) with one argument per `_`: what [`derivative_of!`](crate::derivative_of) finds there (a
/// `#[gradient_of(path)]` registration in scope, found by `registered`, else the function's own companion)
/// through [`copy_of`]. Where there is none, the error of [`require_derivative`] at the call (the copy
/// exists only for an `order = K` function, whose first order reports the same call).
///
/// ```text
/// copy_by_path!(libm::erf, call_on(_), __autodiff_gradient_of__libm__erf).call_on(x)
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! copy_by_path {
    ($path:path, $item:ident($($argument:tt),*), $registered:ident) => {{
        #[allow(unused_imports)]
        use $path as __callee;
        $crate::no_derivative! {
            impl __callee {
                #[allow(clippy::too_many_arguments)]
                pub fn $item<R>(self, $($argument: impl ::core::marker::Sized),*) -> R {
                    ::core::unreachable!()
                }
            }
            impl $crate::private::GenericCopy for __callee {
                type Copy = __callee;
                #[inline(always)]
                fn copy() -> __callee {
                    __callee {}
                }
            }
        }
        #[allow(non_snake_case)]
        trait __Registered {
            fn $registered(&self) -> __callee;
        }
        #[allow(non_snake_case)]
        impl __Registered for &$crate::private::Site {
            #[inline(always)]
            fn $registered(&self) -> __callee {
                __callee {}
            }
        }
        #[allow(unused_imports)]
        use $crate::private::Lookup as _;
        let __found = (&$crate::private::Site).$registered();
        $crate::private::require_derivative((&__found).__autodiff_lookup());
        $crate::private::copy_of(__found)
    }};
}

/// The companion of the generic copy of the function `name`, for the generic copy of a `#[custom_gradient]`
/// function written for `f64` that calls `name` with a value depending on its inputs: declares `copy`, a
/// type naming `name`'s companion where it has one (its `GenericCopy::Copy::call` is then `name`'s generic
/// copy, or the fallback that says why it has none), else a stand-in (in `module`) whose `call` and
/// `call_on` (one `_` per argument) return any type. The call site gives that result the type of `name`'s
/// result, lifted to the copy's float type, through `__autodiff_type_stand_in_result_as_named_function`
/// and a closure calling `name` as written (never run); the stand-in's
/// `__autodiff_type_stand_in_result_as_named_function` is the compile error of `marker` (a
/// [`NoGenericCopy`] declared once beside the copy, so that the copies of the body in the copy's generated
/// functions make one error) once an `order = K` function instantiates it. The custom function's first
/// order never does: a plain helper without derivatives keeps compiling there.
///
/// `name` may be a path (`shapes::square`, `libm::erf`); then `registered` is the method of [`Site`]
/// through which a `#[gradient_of(path)]` registration in scope is found, as a call by that path finds it
/// ([`derivative_of!`](crate::derivative_of)), and `fallback` a trait of the call site's own giving `&Site`
/// that method, which yields `copy`: the call site calls the copy of what `(&Site).registered()` gives.
///
/// ```text
/// copy_by_name!(softplus, __copy_of_softplus, __no_copy_of_softplus, __softplus_has_no_copy, (_));
/// let v = {
///     let r = <__copy_of_softplus as GenericCopy>::Copy::call(x);
///     (__copy_of_softplus {}).__autodiff_type_stand_in_result_as_named_function::<__S, _, _>(&r, || softplus(any::<f64>()));
///     r
/// };
/// copy_by_name!(shapes::square, __copy_of_shapes__square, .., (_), __autodiff_gradient_of__shapes__square,
///     __registered_copy_of_shapes__square);
/// let s = copy_of((&Site).__autodiff_gradient_of__shapes__square()).call_on(x); // (typed as above)
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! copy_by_name {
    ($name:path, $copy:ident, $module:ident, $marker:ident, ($($argument:tt),*) $(, $registered:ident, $fallback:ident)?) => {
        #[allow(unused_imports)]
        use $name as $copy;
        #[allow(dead_code, non_camel_case_types, non_snake_case, unreachable_code)]
        mod $module {
            pub struct $copy {}
            impl $crate::private::GenericCopy for $copy {
                type Copy = $copy;
                #[inline(always)]
                fn copy() -> $copy {
                    $copy {}
                }
            }
            impl $copy {
                #[allow(clippy::too_many_arguments, clippy::extra_unused_type_parameters)]
                #[inline(always)]
                pub fn call<R>($($argument: impl ::core::marker::Sized),*) -> R {
                    ::core::unreachable!()
                }
                #[allow(clippy::too_many_arguments, clippy::extra_unused_type_parameters)]
                #[inline(always)]
                pub fn call_on<R>(self, $($argument: impl ::core::marker::Sized),*) -> R {
                    ::core::unreachable!()
                }
            }
        }
        #[allow(dead_code)]
        impl $module::$copy {
            /// A call of `name` with scalar arguments `args`: `name` as written (`plain`) where its result
            /// holds no float (an index, a count: no derivative to drop), else the compile error of
            /// `marker` at `S`.
            #[inline(always)]
            #[allow(clippy::extra_unused_type_parameters)]
            fn __autodiff_call_generic_copy_or_helper_as_written<S, A, R, C, P>(
                &self,
                _float: ::core::marker::PhantomData<S>,
                args: A,
                _copy: C,
                plain: P,
            ) -> <R as $crate::private::Lift<S>>::Out
            where
                R: $crate::private::Lift<S>,
                C: ::core::ops::FnOnce(A) -> <R as $crate::private::Lift<S>>::Out,
                P: ::core::ops::FnOnce(A) -> R,
                <R as $crate::private::Lift<S>>::Kind: $crate::private::ResultCheck<$marker>,
            {
                #[allow(clippy::let_unit_value)]
                let () = <<R as $crate::private::Lift<S>>::Kind as $crate::private::ResultCheck<$marker>>::CHECK;
                $crate::private::Lift::lift(plain(args))
            }
            /// The compile error of `marker` at `S`; gives the stand-in's result the type of `name`'s.
            #[inline(always)]
            #[allow(clippy::extra_unused_type_parameters)]
            fn __autodiff_type_stand_in_result_as_named_function<S, R: $crate::private::Lift<S>, P: ::core::ops::FnOnce() -> R>(
                &self,
                _result: &<R as $crate::private::Lift<S>>::Out,
                _plain: P,
            ) {
                $crate::private::no_generic_copy::<$marker, (), ()>()
            }
        }
        #[allow(unused_imports)]
        use $module::*;
        #[allow(unused_imports)]
        use $crate::private::TypedCopy as _;
        $(
            #[allow(non_snake_case, non_camel_case_types, dead_code)]
            trait $fallback {
                fn $registered(&self) -> $copy;
            }
            #[allow(non_snake_case)]
            impl $fallback for &$crate::private::Site {
                #[inline(always)]
                fn $registered(&self) -> $copy {
                    $copy {}
                }
            }
        )?
    };
}

/// Gives every type a `__autodiff_type_stand_in_result_as_named_function` that does nothing, except the stand-in of
/// [`copy_by_name!`](crate::copy_by_name), whose inherent one, found first, types its result by a closure
/// calling the function as written (never run).
pub trait TypedCopy {
    /// Nothing: a companion's copy has its own result type. (Hidden: not suggested in rustc's errors.)
    #[doc(hidden)]
    #[inline(always)]
    #[allow(clippy::extra_unused_type_parameters)]
    fn __autodiff_type_stand_in_result_as_named_function<S, R, P>(&self, _result: &R, _plain: P) {}

    /// A call of a callee's generic copy (`copy`) on `args`. (Hidden, as above.)
    #[doc(hidden)]
    #[inline(always)]
    #[allow(clippy::extra_unused_type_parameters)]
    fn __autodiff_call_generic_copy_or_helper_as_written<
        S,
        A,
        R,
        Q,
        C: FnOnce(A) -> R,
        P: FnOnce(A) -> Q,
    >(
        &self,
        _float: core::marker::PhantomData<S>,
        args: A,
        copy: C,
        _plain: P,
    ) -> R {
        copy(args)
    }
}

impl<T: ?Sized> TypedCopy for T {}

/// A value of any type, for a closure that is never run and only says a type
/// ([`copy_by_name!`](crate::copy_by_name)).
#[inline(always)]
pub fn any<T>() -> T {
    unreachable!("a closure that only types a result is never run")
}

/// The checks an `order = K` function written for `f64` makes of each callee at its call (`path`, and for
/// a path of two or more segments the method `registered` by which a `#[gradient_of(path)]` registration in
/// scope is found): what the call finds has a generic copy ([`require_generic_copy`]), and a registration
/// does not stand in for a function with derivatives of its own ([`require_consistent_copy`]). A callee
/// with no derivative at all passes both: the function's first order reports that call, once.
#[doc(hidden)]
#[macro_export]
macro_rules! check_generic_copy {
    ($path:path $(, $registered:ident)?) => {{
        #[allow(unused_imports)]
        use $path as __callee;
        $crate::no_derivative! {
            // Not listed among the types with a copy in an error at another call.
            #[diagnostic::do_not_recommend]
            impl $crate::private::HasGenericCopy for __callee {}
        }
        let __found = __callee {};
        $(
            #[allow(non_snake_case)]
            trait __Registered {
                fn $registered(&self) -> __callee;
            }
            #[allow(non_snake_case)]
            impl __Registered for &$crate::private::Site {
                #[inline(always)]
                fn $registered(&self) -> __callee {
                    __callee {}
                }
            }
            let __own = __callee {};
            let __checked = ((&__own).__autodiff_lookup(), __own, (&$crate::private::Site).$registered());
            $crate::private::require_consistent_copy(__checked);
            let __found = (&$crate::private::Site).$registered();
        )?
        $crate::private::require_generic_copy(__found);
    }};
}

/// Nothing, if what a call by a path finds for its derivative is the function's own companion, or the
/// function has none: `checked` is `(lookup, own, found)`, `lookup` being [`NoDerivative`] for an outside
/// function (whose registration is all there is) and [`Found`] for one with a companion `own`.
#[inline(always)]
pub fn require_consistent_copy<C: ConsistentCopy>(_checked: C) {}

/// Implemented by `(lookup, own, found)` where the derivative a call by a path finds (`found`) is that of
/// the function at the path (`own`), or the function has no derivatives of its own.
#[diagnostic::on_unimplemented(
    message = "a `#[gradient_of]` registration in scope overrides the derivative of this function, which has derivatives of its own, and an `order = K` function calls it by this path",
    label = "called by its path here",
    note = "`f_hessian` would differentiate the registered gradient but the function's own value, and be the derivative of neither gradient: call the function by a name imported with `use`, or register its gradient out of the `order = K` function's sight"
)]
pub trait ConsistentCopy {}

#[diagnostic::do_not_recommend]
impl<O, F> ConsistentCopy for (NoDerivative, O, F) {}

#[diagnostic::do_not_recommend]
impl<T> ConsistentCopy for (Found, T, T) {}

/// The receiver of the methods through which `#[gradient_of(path)]` registrations are found by path.
#[derive(Clone, Copy, Debug)]
pub struct Site;

/// What a call site's lookup gives for a callee with derivatives.
#[derive(Clone, Copy, Debug)]
pub struct Found;

/// The tangent slot of an array argument in the stand-in `jvp` that a call site's lookup declares for a
/// callee without derivatives (never called: the call site runs the callee as written there). The call
/// site converts an array's tangent with `Into::into` into the `Vec` or array the callee's slot takes; in
/// the stand-in, that slot is this type, so the conversion has a target.
#[derive(Clone, Copy, Debug)]
pub struct AnyTangent;

impl<T> From<Vec<T>> for AnyTangent {
    #[inline(always)]
    fn from(_: Vec<T>) -> Self {
        AnyTangent
    }
}

impl<T, const N: usize> From<[T; N]> for AnyTangent {
    #[inline(always)]
    fn from(_: [T; N]) -> Self {
        AnyTangent
    }
}

/// What a call site's lookup gives for a callee without derivatives: it does not implement
/// [`HasDerivative`].
#[derive(Clone, Copy, Debug)]
pub struct NoDerivative;

/// The bound that a call site's lookup must meet: only [`Found`] does.
#[diagnostic::on_unimplemented(
    message = "this function has no derivative, and a differentiable function calls it with a differentiated argument",
    label = "not `#[differentiable]` or `#[custom_gradient]`, and no `#[gradient_of]` in scope registers its gradient",
    note = "if the function is yours, put `#[differentiable]` (or `#[custom_gradient]`) on it",
    note = "if it is not, register its vector-Jacobian product beside the caller: `#[gradient_of(path::to::function)] fn function_vjp(<its parameters>, dy: R) -> G`",
    note = "to use a float it returns as a constant, wrap the call in `autodiff::stop_gradient(..)`; an integer it returns (an index, a count) carries no derivative: say so with its type, `let k: usize = function(..);`",
    note = "an argument computed from a float parameter that `wrt(..)` leaves out counts too where the callee is an associated function, or the caller is a method, takes a parameter struct or has output parameters: the items that other differentiable functions call differentiate every float parameter; pass it as `autodiff::stop_gradient(t)`"
)]
pub trait HasDerivative {}

#[diagnostic::do_not_recommend]
impl HasDerivative for Found {}

/// The bound that a call site's marker for a method must meet (`autodiff-macros/src/companion.rs`,
/// `method_or_fallback`): only [`Found`] does, so that a call of a method without derivatives with a
/// differentiated argument is this one error at the call.
#[diagnostic::on_unimplemented(
    message = "this method has no derivative, and a differentiable function calls it with a differentiated argument",
    label = "not `#[differentiable]`",
    note = "put `#[differentiable]` on the method (or write it as a free function with `#[differentiable]` or `#[custom_gradient]`)",
    note = "to use its value as a constant, compute it outside the differentiable function and pass it in, or wrap the call in `autodiff::stop_gradient(..)`"
)]
pub trait MethodHasDerivative {}

#[diagnostic::do_not_recommend]
impl MethodHasDerivative for Found {}

/// Nothing, if a call site's marker (`Self::__g_found()`) says the method `g` has derivatives: [`Found`]
/// from the marker `#[differentiable]` emits beside `g`, else [`NoDerivative`] from the call site's fallback.
/// The same error in every generated function that calls `g`'s hidden items, which rustc reports once.
#[inline(always)]
pub fn require_method_derivative<T: MethodHasDerivative>(_found: T) {}

/// Is a callee's vector-Jacobian product linear in the cotangent of its value, so that a caller may
/// store the callee's gradient at the call (its `vjp_into` with the cotangent one) and scale it by the
/// cotangent in its reverse sweep (`autodiff-macros/src/reverse/call_gradient.rs`)? The companion of a
/// `#[differentiable]` function that calls no other function with floats has an inherent
/// `cotangent_linear` that says yes, which method resolution prefers; every other companion (a custom
/// gradient's closure, a registered gradient, a caller of those, all of which may clip or otherwise
/// change the cotangent) gets this trait's no.
pub trait CotangentLinear {
    /// No: the caller runs the callee's `vjp_into` with the cotangent in its reverse sweep.
    #[inline(always)]
    fn cotangent_linear(&self) -> bool {
        false
    }
}

impl<T: ?Sized> CotangentLinear for T {}

/// Gives every type [`Found`], unless it has an inherent `__autodiff_lookup` (the macro's fallback).
pub trait Lookup {
    /// [`Found`].
    #[inline(always)]
    fn __autodiff_lookup(&self) -> Found {
        Found
    }
}

impl<T: ?Sized> Lookup for T {}

/// Whether a lookup found the callee's derivatives, as a constant ([`found`]).
pub trait FoundKind {
    /// `true` for [`Found`].
    const FOUND: bool;
}

impl FoundKind for Found {
    const FOUND: bool = true;
}

impl FoundKind for NoDerivative {
    const FOUND: bool = false;
}

/// Whether the lookup that `lookup` would run finds derivatives: a constant of its result's type, so that
/// it can stand in a `const` (the closure is never called; it only names the type).
pub const fn found<K: FoundKind, F: Fn() -> K>(_lookup: &F) -> bool {
    K::FOUND
}

/// Which parameters of a function its companion differentiates through (`autodiff-macros/src/maybe.rs`).
///
/// A function whose `wrt(..)` leaves a float parameter out may pass it to a function without derivatives:
/// its companion's hidden `__vjp_all` and `__jvp_all` (what other differentiable functions call) then
/// call that function as written and give no derivative through the parameter. Such a companion declares
/// an inherent `__AUTODIFF_THROUGH`, one `bool` per parameter (`false` for one without a derivative
/// through it), which is found before this trait's (every parameter differentiated through, the empty
/// slice); a caller passing a differentiated argument to a parameter checks it at compile time
/// ([`require_through`], through [`derivative_of!`](crate::derivative_of)).
pub trait Through {
    /// Every parameter is differentiated through.
    const __AUTODIFF_THROUGH: &'static [bool] = &[];
}

impl<T: ?Sized> Through for T {}

/// Is the parameter at `position` differentiated through, by its companion's `__AUTODIFF_THROUGH`?
pub const fn through(slots: &[bool], position: usize) -> bool {
    position >= slots.len() || slots[position]
}

/// Whether a parameter of a function differentiates through ([`require_through`]).
pub struct Slot<const THROUGH: bool>;

/// The bound that a differentiated argument's parameter must meet: only [`Slot<true>`] does.
#[diagnostic::on_unimplemented(
    message = "a differentiated argument goes to a parameter that the function called leaves out of its `wrt(..)` and passes on to a function without derivatives",
    label = "no derivative comes back through this parameter",
    note = "the function called computes its value from the argument through a function that is not `#[differentiable]` or `#[custom_gradient]`, and no `#[gradient_of]` registers its gradient; as `wrt(..)` leaves the parameter out, the function compiles, but gives no derivative through it",
    note = "put `#[differentiable]` (or `#[custom_gradient]`, or a `#[gradient_of]` registration) on that function, or pass `autodiff::stop_gradient(..)` as the argument if it is meant as a constant",
    note = "where the function called passes the parameter to a call that takes a tuple or that writes an output parameter, or wraps it in `Some(..)`, `Ok(..)` or `Err(..)`, it keeps the parameter constant whether or not that callee has derivatives: to differentiate through it, add it to the `wrt(..)` of the function called"
)]
pub trait DifferentiatedThrough {}

#[diagnostic::do_not_recommend]
impl DifferentiatedThrough for Slot<true> {}

/// Nothing, if the parameter differentiates through (`THROUGH`, from [`through_of!`](crate::through_of)).
#[inline(always)]
pub fn require_through<const THROUGH: bool>()
where
    Slot<THROUGH>: DifferentiatedThrough,
{
}

/// Nothing, if the call site's lookup found the callee's derivatives.
#[inline(always)]
pub fn require_derivative<T: HasDerivative>(_found: T) {}

/// Nothing, if the companion a call site found has a generic copy, not the fallback of a function without
/// one (`order = K` functions written for `f64` check each callee with it: the callee's own companion,
/// and for a call by a path, what a `#[gradient_of(path)]` registration in scope puts in its place, so that
/// the Hessian never comes from a copy of another derivative than the gradient's).
#[inline(always)]
pub fn require_generic_copy<C: HasGenericCopy>(_found: C) {}

/// Implemented by the companion type of a function with a generic copy (its own or one `order = K` or
/// `#[differentiable]` made); not by one whose [`GenericCopy`](crate::private::GenericCopy) is the fallback.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no generic copy, which an `order = K` caller written for `f64` needs",
    label = "called here by a function with `order = K`",
    note = "give the callee `order = 2` too (its generic copy is then made, or an error says why it cannot be), \
            or make it generic over `T: Float`; `#[differentiable]` alone makes the copy only for a function \
            whose body takes references only to pass them to calls and iterates slices only by value \
            (`for &v in x`, `x.iter().map(|v| ..)`) or its slice parameters and locals that surely hold \
            floats (`for v in w.iter()` of `let w = x.to_vec();`, `vec![x[0], 2.0 * a]`, `[a, b]`, a \
            `Vec::new()` filled by `push` of floats, a `Vec` a differentiable callee returns, not one a \
            plain function returns); a `#[custom_gradient]` function written for `f64` has one where its body and closure would compile generically so (they call other \
            functions by their bare names, whose copies its copy calls): else make it generic over `T: Float` \
            (and what it calls); a function of a parameter struct with `order = K` has one with its structs \
            constant only where its body passes neither a struct nor a field on whole to a call (callers \
            passing it the struct on whole reach its hidden function over the struct's values, but a method \
            keeping `self` constant that passes `self` to it, `g(self, x)`, reaches this copy): give that \
            method `wrt(self, ..)`"
)]
pub trait HasGenericCopy {}

/// What `Self::__g_copied()` gives a check at a call `Self::g(..)` or `self.g(..)` of an `order = K`
/// function when the method `g` has a generic copy: the check's own trait, implemented for every type,
/// supplies it ([`require_method_copy`]).
pub struct MethodCopy;

/// What `Self::__g_copied()` gives when the method `g` has no generic copy: an inherent associated function
/// of the fallback that stands for the copy, found before the check's trait.
pub struct NoMethodCopy;

/// Implemented by [`MethodCopy`], not by [`NoMethodCopy`]: the error at a call of a method without a
/// generic copy by an `order = K` function.
#[diagnostic::on_unimplemented(
    message = "this method has no generic copy, which an `order = K` caller needs",
    label = "called here by a function with `order = K`",
    note = "`#[differentiable]` makes the generic copy `Self::__g_generic` of a method or associated function, \
            which the copy of an `order = K` caller calls, only where it surely compiles: a body that reads \
            `self`'s fields and slices by index (`self.w[i]`) or by value (`for &w in self.w.iter()`, iterator \
            chains such as `self.w.iter().map(|w| w * x).sum()`) or by reference with each element read as a number \
            (`for w in self.w.iter()` adding `w * x`), \
            takes references only to pass them to calls (a field on whole: below), calls only float methods, `len`, \
            `clone`, `to_vec` and `push`, and calls other functions by their names or paths (`m::g(..)`) and \
            associated functions as `Self::h(..)` or `S::h(..)`, and, in a method taking `&self`, other methods \
            as `self.h(..)` (their copies); a method passing `self` on whole to a call (`g(self, x)`) has none \
            (one differentiated in `self`, `wrt(self)`, has one with a constant `self`)",
    note = "a method passing a field of `self` on whole to a call (`g(&self.w, x)`, `g(&self.inner, x)`) has \
            one only for a caller that differentiates `self` (`wrt(self)`), and only where the callee is a \
            `#[differentiable]` function of the method's own module called by its bare name (not imported), \
            or an associated function of its `impl` called as `Self::h(..)`, of floats and of slices, `Vec`s, \
            arrays or matrices of floats (not of integers), returning a float, an array or a tuple of floats \
            (or `()` with output parameters); with a constant `self` it has none: give the caller `wrt(self)`, or read the \
            field by its elements (`self.w[i]`)",
    note = "rewrite the callee's body so, give an associated function without `self` `order = 2` too (its \
            generic copy is then made, or an error says why it cannot be), or write the callee's computation \
            out in the caller",
    note = "in a generic `impl` (`impl<T: Float> S<T>`), an associated function without `self` has a generic \
            copy where its body names `Self` only to call other associated functions (`Self::h(x)`) or inside \
            `T::from(..)`; `order = 2` there is supported on one whose body names neither `Self` nor `self` \
            (else write it as a free function generic over `T: Float`)"
)]
pub trait HasMethodCopy {}

impl HasMethodCopy for MethodCopy {}

/// The check at a call of a method (or associated function) `g` by an `order = K` function, on what
/// `Self::__g_copied()` gives: an error at the call if `g` has no generic copy, instead of rustc's missing
/// `Self::__g_generic` (which the fallback of a method without one stands in for).
#[inline(always)]
pub fn require_method_copy<C: HasMethodCopy>(_found: C) {}

/// Implemented, for every float type `S`, by the fallback that stands for the generic copy of a function
/// written for `f64` that has none; `FAIL` panics with a message that names the function and says what
/// to do. Generic in `S`, it is evaluated only when an `order = K` function instantiates the fallback on
/// its dual numbers: a compile error under `cargo build` (not `cargo check`, which does not instantiate).
pub trait NoGenericCopy<S> {
    /// A panic, at compile time.
    const FAIL: ();
}

/// What the fallback for a missing generic copy runs in place of the function: the compile error of
/// `M::FAIL` once instantiated (never a value).
#[inline(always)]
pub fn no_generic_copy<M: NoGenericCopy<S>, S, R>() -> R {
    #[allow(clippy::let_unit_value)]
    let () = M::FAIL;
    unreachable!("`NoGenericCopy::FAIL` is a compile error")
}

/// The companion of the generic copy of the function whose companion a call site found (`found`, from
/// [`derivative_of!`](crate::derivative_of)): how the generic copy of an `order = K` caller calls a function
/// written by a path of two or more segments (`libm::erf(x)`), so that it reaches what the caller's
/// first-order derivative reaches, a `#[gradient_of(path)]` registration in scope included
/// ([`copy_by_path!`](crate::copy_by_path)).
#[inline(always)]
pub fn copy_of<C: crate::private::GenericCopy>(_found: C) -> C::Copy {
    C::copy()
}

/// A call of the function `path` in the generic copy of a function (over the float type `scalar`) that
/// only parameters outside its `wrt(..)` reach (`autodiff-macros/src/maybe.rs`): the generic copy of what
/// the function's first order finds for it where it has derivatives (its companion, or for a path of two
/// or more segments a `#[gradient_of(path)]` registration in scope, found by `registered`, as
/// [`derivative_of!`](crate::derivative_of) finds them), else the function as written, its float arguments
/// (those with a type, the callee's parameter's) taken back to that type by
/// [`plain`](crate::private::plain) (which panics on a tangent, never dropped) and its result lifted (a
/// constant: the arguments have none, as the callers' `require_through` checks make sure). A closure of
/// the arguments, chosen at compile time. An argument `_` is passed as it is (an integer), one `const` (a
/// constant from outside, `HALF`, of a type the macro cannot see) as it is to the function as written and
/// through [`constant`](crate::private::constant) to the copy. An argument `[f64]` is a reference to an
/// array of floats (`&w`): as it is to the copy, to the function as written a reference to its values
/// ([`plain_array`](crate::private::plain_array), which panics on a tangent as `plain` does), in the
/// array's shape (a `Vec` or `[f64; N]`). An argument `(_, _)` is a tuple of floats by value
/// (`product((0.5, c))`): as it is to the copy, its values ([`plain_tuple`](crate::private::plain_tuple),
/// in the callee's float types) to the function as written. The result may be a float, a `Vec`, an array
/// or a tuple of them (`features(c)`), which [`Lift`](crate::private::Lift) lifts as a whole. An argument
/// `[mut f64]` is an array of floats the function writes (`fill(c, &mut v)`): as it is to the copy, to the
/// function as written a buffer of its values (as `plain_array` gives them), written back into it after the
/// call ([`write_back`](crate::private::write_back)).
///
/// ```text
/// (copy_or_as_written!(bump, __S, (__a0: f64, __a1: f64)))(lit::<__S>(0.5), t)
/// (copy_or_as_written!(product, __S, (__a0: (_, _))))((lit::<__S>(0.5), c))
/// (copy_or_as_written!(fill, __S, (__a0: f64, __a1: [mut f64])))(c, &mut v)
/// (copy_or_as_written!(shapes::bump, __S, (__a0: f64, __a1: _, __a2: const), __autodiff_gradient_of__shapes__bump))(x, n, HALF)
/// (copy_or_as_written!(plain_sum, __S, (__a0: [f64])))(&w)
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! copy_or_as_written {
    ($path:path, $scalar:ty, ($($a:ident: $ty:tt),*) $(, $registered:ident)?) => {{
        #[allow(unused_imports)]
        use $path as __callee;
        $crate::no_derivative! {
            impl $crate::private::GenericCopy for __callee {
                type Copy = __callee;
                #[inline(always)]
                fn copy() -> __callee {
                    __callee {}
                }
            }
            impl __callee {
                #[allow(clippy::too_many_arguments, clippy::extra_unused_type_parameters)]
                #[inline(always)]
                pub fn call_on<R>(self, $($a: impl ::core::marker::Sized),*) -> R {
                    ::core::unreachable!()
                }
                /// The callee as written (`plain`), its result lifted to the copy's float type `S`.
                #[inline(always)]
                #[allow(clippy::extra_unused_type_parameters)]
                pub fn __autodiff_copy_or_as_written<S, A, R, C, P>(
                    &self,
                    _float: ::core::marker::PhantomData<S>,
                    args: A,
                    _copy: C,
                    plain: P,
                ) -> <R as $crate::private::Lift<S>>::Out
                where
                    R: $crate::private::Lift<S>,
                    C: ::core::ops::FnOnce(A) -> <R as $crate::private::Lift<S>>::Out,
                    P: ::core::ops::FnOnce(A) -> R,
                {
                    $crate::private::Lift::lift(plain(args))
                }
            }
        }
        #[allow(unused_imports)]
        use $crate::private::CopyOrAsWritten as _;
        #[allow(clippy::redundant_closure_call)]
        |$($a: $crate::copy_or_as_written!(@type $scalar, $ty)),*| {
            let __found = $crate::derivative_of!(@found __callee $(, $registered)?);
            (&__found).__autodiff_copy_or_as_written(
                ::core::marker::PhantomData::<$scalar>,
                ($($a,)*),
                |($($a,)*)| {
                    $crate::private::copy_of($crate::derivative_of!(@found __callee $(, $registered)?))
                        .call_on($($crate::copy_or_as_written!(@copy $a, $ty, $scalar)),*)
                },
                |($($a,)*)| {
                    $(
                        #[allow(unused_mut)]
                        let mut $a = $crate::copy_or_as_written!(@plain $a, $ty, $path);
                    )*
                    #[allow(clippy::let_unit_value)]
                    let __result = $path($($crate::copy_or_as_written!(@pass $a, $ty)),*);
                    $($crate::copy_or_as_written!(@back $a, $ty);)*
                    __result
                },
            )
        }
    }};
    (@type $scalar:ty, [mut $ty:ty]) => { &mut [$scalar] };
    (@type $scalar:ty, [$ty:ty]) => { _ };
    (@type $scalar:ty, ($($part:tt)*)) => { _ };
    (@type $scalar:ty, _) => { _ };
    (@type $scalar:ty, const) => { _ };
    (@type $scalar:ty, $ty:ty) => { $scalar };
    (@copy $a:ident, const, $scalar:ty) => { $crate::private::constant::<$scalar, _>($a) };
    (@copy $a:ident, $ty:tt, $scalar:ty) => { $a };
    // (Bound by `let` and lent by `Borrow`: `&plain_array(..)` passed to a `&[f64]` parameter would make
    // rustc infer the array's shape from the parameter's type, `[f64]`, before it knows the argument's.)
    // (The copy's array, and a buffer of its values that the callee writes.)
    (@plain $a:ident, [mut $ty:ty], $path:path) => {
        {
            let __values = $crate::private::plain_array::<$ty, _>(&*$a, ::core::stringify!($path));
            ($a, __values)
        }
    };
    (@plain $a:ident, [$ty:ty], $path:path) => {
        $crate::private::plain_array::<$ty, _>($a, ::core::stringify!($path))
    };
    (@plain $a:ident, ($($part:tt)*), $path:path) => {
        $crate::private::plain_tuple($a, ::core::stringify!($path))
    };
    (@plain $a:ident, _, $path:path) => { $a };
    (@plain $a:ident, const, $path:path) => { $a };
    (@plain $a:ident, $ty:ty, $path:path) => {
        $crate::private::plain::<$ty, _>($a, ::core::stringify!($path))
    };
    (@pass $a:ident, [mut $ty:ty]) => { ::core::borrow::BorrowMut::borrow_mut(&mut $a.1) };
    (@pass $a:ident, [$ty:ty]) => { ::core::borrow::Borrow::borrow(&$a) };
    (@pass $a:ident, $ty:tt) => { $a };
    // The buffer written back into the copy's array, lifted.
    (@back $a:ident, [mut $ty:ty]) => { $crate::private::write_back(&mut $a.0[..], &$a.1[..]) };
    (@back $a:ident, $ty:tt) => {};
}

/// The derivative `item` (`vjp_into`, `jvp`) of the generic copy of what the first order finds for the
/// function `path` (`registered` as in [`copy_or_as_written!`](crate::copy_or_as_written)), for a call of
/// the hidden sweeps of a generic copy that only parameters outside its `wrt(..)` reach, which runs it only
/// where [`found_of!`](crate::found_of) says the function has derivatives: else a stand-in whose `item`
/// takes arguments of the given types and never returns. With `@checked`, the error of
/// [`require_derivative`] where there are none.
#[doc(hidden)]
#[macro_export]
macro_rules! copy_derivative_of {
    (@checked $path:path, $item:ident($($argument:tt),*) $(, $registered:ident)?) => {{
        #[allow(unused_imports)]
        use $path as __callee;
        $crate::no_derivative! {
            impl __callee {
                #[allow(clippy::too_many_arguments)]
                pub fn $item<R>(self, $($argument: impl ::core::marker::Sized),*) -> R {
                    ::core::unreachable!()
                }
            }
            impl $crate::private::GenericCopy for __callee {
                type Copy = __callee;
                #[inline(always)]
                fn copy() -> __callee {
                    __callee {}
                }
            }
        }
        let __found = $crate::derivative_of!(@found __callee $(, $registered)?);
        $crate::private::require_derivative((&__found).__autodiff_lookup());
        $crate::private::copy_of(__found)
    }};
    ($path:path, $item:ident($($argument:ty),*) $(, $registered:ident)?) => {{
        #[allow(unused_imports)]
        use $path as __callee;
        $crate::no_derivative! {
            impl __callee {
                #[allow(clippy::too_many_arguments)]
                pub fn $item(self, $(_: $argument),*) -> ! {
                    ::core::unreachable!()
                }
            }
            impl $crate::private::GenericCopy for __callee {
                type Copy = __callee;
                #[inline(always)]
                fn copy() -> __callee {
                    __callee {}
                }
            }
        }
        $crate::private::copy_of($crate::derivative_of!(@found __callee $(, $registered)?))
    }};
}

/// Gives every type (a companion) the generic copy's call in
/// [`copy_or_as_written!`](crate::copy_or_as_written), unless it has an inherent
/// `__autodiff_copy_or_as_written` (the stand-in of a function without derivatives).
pub trait CopyOrAsWritten {
    /// `copy(args)`. (Hidden: not suggested in rustc's errors.)
    #[doc(hidden)]
    #[inline(always)]
    #[allow(clippy::extra_unused_type_parameters)]
    fn __autodiff_copy_or_as_written<S, A, R, Q, C: FnOnce(A) -> R, P: FnOnce(A) -> Q>(
        &self,
        _float: core::marker::PhantomData<S>,
        args: A,
        copy: C,
        _plain: P,
    ) -> R {
        copy(args)
    }
}

impl<T: ?Sized> CopyOrAsWritten for T {}
