//! What the generated code uses for loops and arrays: the tape on which the forward sweep stores the
//! values the reverse sweep reads back, and helpers for array adjoints and tangents.
//!
//! A tape is a plain typed stack (its first values inline, then a `Vec<T>`): no dynamic graph and no boxed closures. The macro gives each
//! stored value its own tape, so the type is inferred from what is pushed and pushes and pops of different
//! values never need to agree on an order. It is generic over the value type, so a tape of `Dual<f64>`
//! works as one of `f64` does: second derivatives through loops need nothing else.

use num_traits::Zero;
use std::mem::MaybeUninit;

/// How many values a tape holds before it allocates: the loops of small callees (a `logsumexp` over a
/// few components, called once per data point) then store nothing on the heap.
const INLINE: usize = 16;

/// The most values [`Tape::reserve`] makes room for at once; beyond it, a tape grows as it is filled.
pub const MAX_RESERVED: usize = 1 << 24;

/// A stack of values the forward sweep stores for the reverse sweep: up to [`INLINE`] values in the tape
/// itself; once it is to hold more (pushed or reserved), all of them in a `Vec`, so that a long loop pushes
/// and pops on a plain `Vec` (one test of a flag more).
///
/// The inline slots are uninitialised until pushed: making a tape writes nothing to them, and a push or a
/// pop is one store or load and the count (a tape of `Option`s wrote and tested a tag each time, which
/// cost GMM's gradient, whose callee `logsumexp` makes two tapes per data point, 7 % of its instructions).
pub struct Tape<T> {
    /// `inline[..len]` hold values, the rest none, while the tape is not on the heap.
    inline: [MaybeUninit<T>; INLINE],
    /// How many values `inline` holds, while the tape is not on the heap (0 once it is).
    len: usize,
    /// Every value, once the tape is on the heap.
    spilled: Vec<T>,
    on_heap: bool,
}

impl<T> Default for Tape<T> {
    fn default() -> Self {
        Tape {
            inline: [const { MaybeUninit::uninit() }; INLINE],
            len: 0,
            spilled: Vec::new(),
            on_heap: false,
        }
    }
}

impl<T> Tape<T> {
    /// An empty tape. It allocates when a value beyond the first [`INLINE`] is pushed.
    #[inline]
    pub fn new() -> Self {
        Tape::default()
    }

    /// Stores a value.
    #[inline]
    pub fn push(&mut self, value: T) {
        if self.on_heap {
            self.spilled.push(value);
        } else if let Some(slot) = self.inline.get_mut(self.len) {
            slot.write(value);
            self.len += 1;
        } else {
            self.move_to_heap(1);
            self.spilled.push(value);
        }
    }

    /// Moves the values held inline into `spilled`, with room for `additional` more (at most
    /// [`MAX_RESERVED`]).
    #[cold]
    fn move_to_heap(&mut self, additional: usize) {
        let held = self.len;
        self.spilled
            .reserve(held.saturating_add(additional.min(MAX_RESERVED)));
        // Forgotten by `inline` before they are moved: should anything below panic, they leak rather
        // than being dropped twice.
        self.len = 0;
        for slot in &self.inline[..held] {
            // SAFETY: `inline[..held]` held values (the invariant of `len`), each read out once here;
            // with `len` now 0 nothing reads or drops them again.
            self.spilled.push(unsafe { slot.assume_init_read() });
        }
        self.on_heap = true;
    }

    /// Makes room for `additional` more values (at most [`MAX_RESERVED`] at once): a loop whose trip
    /// count is known reserves its tape when it starts, so that the tape does not grow step by step.
    #[inline]
    pub fn reserve(&mut self, additional: usize) {
        if self.on_heap {
            self.spilled.reserve(additional.min(MAX_RESERVED));
        } else if self.len.saturating_add(additional) > INLINE {
            self.move_to_heap(additional);
        }
    }

    /// Takes back the value stored last.
    ///
    /// # Panics
    ///
    /// If the tape is empty, which generated code never does: the reverse sweep pops exactly what the
    /// forward sweep pushed. A panic here is a bug in autodiff.
    #[inline]
    pub fn pop(&mut self) -> T {
        let value = if self.on_heap {
            self.spilled.pop()
        } else {
            self.len.checked_sub(1).map(|last| {
                self.len = last;
                // SAFETY: `inline[last]` held a value (it was below `len`), read out once: `len` no
                // longer covers it.
                unsafe { self.inline[last].assume_init_read() }
            })
        };
        match value {
            Some(value) => value,
            None => read_too_often(),
        }
    }

    /// A reader of the stored values, from the last: [`TapeReader::pop`] is [`Tape::pop`] without the
    /// test of where the tape keeps its values, and with a count that stays in a register rather than
    /// in the tape. The values the reader has not taken are the tape's again when it is dropped. The
    /// reverse sweep reads through one each tape that it only pops.
    #[inline]
    pub fn reader(&mut self) -> TapeReader<'_, T> {
        let tape: *mut Tape<T> = self;
        // SAFETY: `tape` is `self`, which the reader borrows mutably. The values stay where they are;
        // the tape's count is 0 until the reader gives back those it has not taken (leaked, a reader
        // leaks them, and nothing is read or dropped twice).
        let (values, remaining) = unsafe {
            if (*tape).on_heap {
                let held = (*tape).spilled.len();
                (*tape).spilled.set_len(0);
                ((*tape).spilled.as_mut_ptr(), held)
            } else {
                let held = std::mem::replace(&mut (*tape).len, 0);
                (std::ptr::addr_of_mut!((*tape).inline).cast::<T>(), held)
            }
        };
        TapeReader {
            values,
            remaining,
            tape,
            borrow: std::marker::PhantomData,
        }
    }

    /// How many values are stored.
    pub fn len(&self) -> usize {
        if self.on_heap {
            self.spilled.len()
        } else {
            self.len
        }
    }

    /// Is the tape empty?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values held inline.
    fn held(&self) -> &[T] {
        let held = &self.inline[..self.len];
        // SAFETY: `inline[..len]` hold values, and `MaybeUninit<T>` has the layout of `T`.
        unsafe { &*(held as *const [MaybeUninit<T>] as *const [T]) }
    }
}

/// The values of a [`Tape`] read back from the last ([`Tape::reader`]): a pointer and a count, which
/// stay in registers through a loop, where [`Tape::pop`] tests where the tape keeps its values and
/// writes its count back to the tape each time.
pub struct TapeReader<'a, T> {
    /// `values[..remaining]` are the values not yet taken.
    values: *mut T,
    remaining: usize,
    /// The tape, whose count is set back to `remaining` when the reader is dropped.
    tape: *mut Tape<T>,
    borrow: std::marker::PhantomData<&'a mut Tape<T>>,
}

impl<T> TapeReader<'_, T> {
    /// Takes back the value stored last of those not yet taken.
    ///
    /// # Panics
    ///
    /// If none is left, which generated code never does (as [`Tape::pop`]).
    #[inline]
    pub fn pop(&mut self) -> T {
        let Some(last) = self.remaining.checked_sub(1) else {
            read_too_often()
        };
        self.remaining = last;
        // SAFETY: `values[last]` held a value (it was below `remaining`), read out once: `remaining` no
        // longer covers it.
        unsafe { self.values.add(last).read() }
    }

    /// How many values are left.
    pub fn len(&self) -> usize {
        self.remaining
    }

    /// Has every value been taken?
    pub fn is_empty(&self) -> bool {
        self.remaining == 0
    }
}

impl<T> Drop for TapeReader<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `tape` is borrowed mutably by the reader, and `values[..remaining]` are the values it
        // held first that were not taken, where it keeps them.
        unsafe {
            if (*self.tape).on_heap {
                (*self.tape).spilled.set_len(self.remaining);
            } else {
                (*self.tape).len = self.remaining;
            }
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for TapeReader<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // SAFETY: `values[..remaining]` hold values, borrowed here as `self` is.
        let left = unsafe { std::slice::from_raw_parts(self.values, self.remaining) };
        f.debug_list().entries(left).finish()
    }
}

/// A tape read more often than written: a bug of the generated code.
#[cold]
#[inline(never)]
fn read_too_often() -> ! {
    panic!("autodiff: a tape was read more often than written; this is a bug in autodiff, please report it")
}

impl<T> Drop for Tape<T> {
    fn drop(&mut self) {
        let held = self.len;
        self.len = 0;
        for slot in &mut self.inline[..held] {
            // SAFETY: `inline[..held]` held values; with `len` now 0 none is dropped twice.
            unsafe { slot.assume_init_drop() };
        }
    }
}

impl<T: Clone> Clone for Tape<T> {
    fn clone(&self) -> Self {
        let mut copy = Tape::new();
        for value in self.held() {
            copy.push(value.clone());
        }
        copy.spilled = self.spilled.clone();
        copy.on_heap = self.on_heap;
        copy
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Tape<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let values = if self.on_heap {
            &self.spilled[..]
        } else {
            self.held()
        };
        f.debug_list().entries(values).finish()
    }
}

/// The arrays that the forward sweep stores at calls (a local array passed to a call and written after
/// it), one after another in one buffer: storing one allocates nothing once the buffer has grown, where a
/// [`Tape`] of copies would allocate one per call.
#[derive(Debug, Clone)]
pub struct ArrayTape<T> {
    values: Vec<T>,
    starts: Vec<usize>,
    /// The array read back last.
    current: Vec<T>,
}

impl<T> Default for ArrayTape<T> {
    fn default() -> Self {
        ArrayTape {
            values: Vec::new(),
            starts: Vec::new(),
            current: Vec::new(),
        }
    }
}

impl<T: Clone> ArrayTape<T> {
    /// An empty tape.
    #[inline]
    pub fn new() -> Self {
        ArrayTape::default()
    }

    /// Stores a copy of `array`.
    #[inline]
    pub fn push(&mut self, array: &[T]) {
        self.starts.push(self.values.len());
        self.values.extend_from_slice(array);
    }

    /// Makes room for `arrays` more arrays of `len` values each (at most [`MAX_RESERVED`] values at
    /// once): a loop whose trip count is known stores an array at a call in each iteration.
    #[inline]
    pub fn reserve(&mut self, arrays: usize, len: usize) {
        self.starts.reserve(arrays.min(MAX_RESERVED));
        self.values
            .reserve(arrays.saturating_mul(len).min(MAX_RESERVED));
    }

    /// Takes back the array stored last, as a `Vec` that lives until the next `pop`.
    ///
    /// # Panics
    ///
    /// If the tape is empty, which generated code never does. A panic here is a bug in autodiff.
    #[inline]
    pub fn pop(&mut self) -> &Vec<T> {
        let Some(start) = self.starts.pop() else {
            panic!("autodiff: a tape was read more often than written; this is a bug in autodiff, please report it")
        };
        self.current.clear();
        self.current.extend_from_slice(&self.values[start..]);
        self.values.truncate(start);
        &self.current
    }
}

impl<T: Zero + Copy + core::ops::Mul<Output = T>> ArrayTape<T> {
    /// Stores `len` zeros and lends them to be written: the buffer into which a call's reverse sweep
    /// adds the gradient of the call's value at the call (`vjp_into` with the cotangent 1).
    #[inline]
    pub fn push_zeros(&mut self, len: usize) -> &mut [T] {
        let start = self.values.len();
        self.starts.push(start);
        self.values.resize(start + len, T::zero());
        &mut self.values[start..]
    }

    /// Takes back the array stored last, `g`, and adds `scale * g` into `target` (`target[i] += scale *
    /// g[i]`): a call's gradient stored at the call, times the cotangent of the call's value.
    ///
    /// # Panics
    ///
    /// If the tape is empty or `target` is shorter than the array, which generated code never does. A
    /// panic here is a bug in autodiff.
    #[inline]
    pub fn pop_add_scaled(&mut self, target: &mut [T], scale: T) {
        let Some(start) = self.starts.pop() else {
            panic!("autodiff: a tape was read more often than written; this is a bug in autodiff, please report it")
        };
        let stored = &self.values[start..];
        assert!(
            target.len() >= stored.len(),
            "autodiff: a stored gradient is longer than its adjoint buffer; this is a bug in autodiff, please report it"
        );
        for (t, g) in target.iter_mut().zip(stored) {
            *t = *t + scale * *g;
        }
        self.values.truncate(start);
    }
}

/// Local arrays stored whole by the forward sweep (after the loop that last writes them in an iteration),
/// one after another in one buffer, and lent back by the reverse sweep as slices, last first: the reverse
/// reads the elements it needs from the slice instead of popping one tape per read. A pop lends the
/// stored values in place (no copy); they are dropped at the next `push`.
#[derive(Debug, Clone)]
pub struct SnapshotTape<T> {
    values: Vec<T>,
    starts: Vec<usize>,
    /// The end of the array to lend next: the values from here on were lent already.
    end: usize,
}

impl<T> Default for SnapshotTape<T> {
    fn default() -> Self {
        SnapshotTape {
            values: Vec::new(),
            starts: Vec::new(),
            end: 0,
        }
    }
}

impl<T: Clone> SnapshotTape<T> {
    /// An empty tape.
    #[inline]
    pub fn new() -> Self {
        SnapshotTape::default()
    }

    /// Stores a copy of `array`.
    #[inline]
    pub fn push(&mut self, array: &[T]) {
        self.values.truncate(self.end);
        self.starts.push(self.end);
        self.values.extend_from_slice(array);
        self.end = self.values.len();
    }

    /// Makes room for `arrays` more arrays of `len` values each (at most [`MAX_RESERVED`] values at
    /// once): a loop whose trip count is known stores an array in each iteration.
    #[inline]
    pub fn reserve(&mut self, arrays: usize, len: usize) {
        self.starts.reserve(arrays.min(MAX_RESERVED));
        self.values
            .reserve(arrays.saturating_mul(len).min(MAX_RESERVED));
    }

    /// Lends the array stored last that was not lent yet.
    ///
    /// # Panics
    ///
    /// If the tape is empty, which generated code never does. A panic here is a bug in autodiff.
    #[inline]
    pub fn pop(&mut self) -> &[T] {
        let Some(start) = self.starts.pop() else {
            panic!("autodiff: a tape was read more often than written; this is a bug in autodiff, please report it")
        };
        let end = core::mem::replace(&mut self.end, start);
        &self.values[start..end]
    }
}

/// `array[index]`, or zero where `index` is out of bounds: the value a loop reads in every iteration,
/// stored before the loop starts, when the loop may not run at all (and the value is then never used).
#[inline]
pub fn load_or_zero<T: Zero + Copy>(array: &[T], index: usize) -> T {
    array.get(index).copied().unwrap_or_else(T::zero)
}

/// The `t`-th item of `iterator`: the reverse sweep's way back to the index a `for` loop had at its
/// `t`-th iteration (constant time for ranges).
///
/// # Panics
///
/// If the iterator is shorter, which generated code never asks for: `t` counts iterations that ran.
#[inline]
pub fn nth<I: Iterator>(mut iterator: I, t: usize) -> I::Item {
    match iterator.nth(t) {
        Some(item) => item,
        None => panic!("autodiff: a loop ran fewer iterations than recorded; this is a bug in autodiff, please report it"),
    }
}

/// Something with a length: slices, `Vec`s and arrays, and references to them.
pub trait ArrayLike {
    /// The array of zeros of the same shape: a `Vec` for slices and `Vec`s, an array for arrays.
    type Zeros;
    /// The number of elements.
    fn array_len(&self) -> usize;
    /// Zeros of the same shape.
    fn zeros(&self) -> Self::Zeros;
    /// A copy of the elements, in the same owned shape as [`ArrayLike::zeros`].
    fn copy(&self) -> Self::Zeros;
}

impl<T: Zero + Clone> ArrayLike for [T] {
    type Zeros = Vec<T>;
    fn array_len(&self) -> usize {
        self.len()
    }
    fn zeros(&self) -> Vec<T> {
        vec![T::zero(); self.len()]
    }
    fn copy(&self) -> Vec<T> {
        self.to_vec()
    }
}

impl<T: Zero + Clone> ArrayLike for Vec<T> {
    type Zeros = Vec<T>;
    fn array_len(&self) -> usize {
        self.len()
    }
    fn zeros(&self) -> Vec<T> {
        vec![T::zero(); self.len()]
    }
    fn copy(&self) -> Vec<T> {
        self.clone()
    }
}

impl<T: Zero + Copy, const N: usize> ArrayLike for [T; N] {
    type Zeros = [T; N];
    fn array_len(&self) -> usize {
        N
    }
    fn zeros(&self) -> [T; N] {
        [T::zero(); N]
    }
    fn copy(&self) -> [T; N] {
        *self
    }
}

impl<A: ArrayLike + ?Sized> ArrayLike for &A {
    type Zeros = A::Zeros;
    fn array_len(&self) -> usize {
        (**self).array_len()
    }
    fn zeros(&self) -> A::Zeros {
        (**self).zeros()
    }
    fn copy(&self) -> A::Zeros {
        (**self).copy()
    }
}

impl<A: ArrayLike + ?Sized> ArrayLike for &mut A {
    type Zeros = A::Zeros;
    fn array_len(&self) -> usize {
        (**self).array_len()
    }
    fn zeros(&self) -> A::Zeros {
        (**self).zeros()
    }
    fn copy(&self) -> A::Zeros {
        (**self).copy()
    }
}

/// A copy of `array` as it is now: what the forward sweep stores of an array passed to a call and
/// written afterwards, so that the callee's adjoint sees the values the call saw.
#[inline]
pub fn snapshot<A: ArrayLike + ?Sized>(array: &A) -> A::Zeros {
    array.copy()
}

/// Zeros shaped like `array`: the adjoint buffer of an array, or the gradient of an unused one.
#[inline]
pub fn zeros_like<A: ArrayLike + ?Sized>(array: &A) -> A::Zeros {
    array.zeros()
}

/// The shapes a callee's cotangent of a returned array comes in: a `Vec<T>` or an array `[T; N]`.
pub trait FromElements<T> {
    /// The elements of `elements` in this shape.
    fn from_elements(elements: &[T]) -> Self;
}

impl<T: Clone> FromElements<T> for Vec<T> {
    fn from_elements(elements: &[T]) -> Vec<T> {
        elements.to_vec()
    }
}

impl<T: Copy, const N: usize> FromElements<T> for [T; N] {
    fn from_elements(elements: &[T]) -> [T; N] {
        if elements.len() != N {
            panic!(
                "autodiff: an adjoint of length {} for an array of length {N}; this is a bug in autodiff, please report it",
                elements.len()
            );
        }
        ::core::array::from_fn(|i| elements[i])
    }
}

/// The adjoint buffer of a call's returned array as the cotangent its `vjp` takes, whose type the callee
/// says: the buffer of an array made inside a loop or branch body is a `Vec` even where the callee returns
/// an array `[T; N]`.
#[inline]
pub fn call_cotangent<T, D: FromElements<T>>(buffer: &[T]) -> D {
    D::from_elements(buffer)
}

/// Checks that the cotangent `d` of a returned array has that array's length, and gives it back as the
/// array's adjoint buffer.
///
/// # Panics
///
/// If the lengths differ, with a message naming `label` and both lengths.
#[inline]
pub fn cotangent<D: ArrayLike, A: ArrayLike + ?Sized>(label: &str, d: D, returned: &A) -> D {
    if d.array_len() != returned.array_len() {
        panic!(
            "autodiff: the cotangent `{label}` has length {} but the returned value has length {}",
            d.array_len(),
            returned.array_len()
        );
    }
    d
}

/// Checks that the tangent of the array parameter `label` has the parameter's length.
///
/// # Panics
///
/// If the lengths differ, with a message naming the parameter and both lengths.
#[inline]
pub fn tangent<D: ArrayLike, A: ArrayLike + ?Sized>(label: &str, t: D, param: &A) -> D {
    if t.array_len() != param.array_len() {
        panic!(
            "autodiff: the tangent of `{label}` has length {} but `{label}` has length {}",
            t.array_len(),
            param.array_len()
        );
    }
    t
}

/// Checks that the caller's gradient buffer of the array parameter `label` (`f_grad_into`) has the
/// parameter's length, and gives it back for the reverse sweep to accumulate into.
///
/// # Panics
///
/// If the lengths differ, with a message naming the parameter and both lengths.
#[inline]
pub fn gradient_buffer<'b, T, A: ArrayLike + ?Sized>(
    label: &str,
    buffer: &'b mut [T],
    param: &A,
) -> &'b mut [T] {
    checked_buffer("gradient", label, buffer, param)
}

/// `buffer`, after checking that it has the length of the array `label` (`what` names the buffer in the
/// message: "gradient", "tangent").
#[inline]
fn checked_buffer<'b, T, A: ArrayLike + ?Sized>(
    what: &str,
    label: &str,
    buffer: &'b mut [T],
    array: &A,
) -> &'b mut [T] {
    if buffer.len() != array.array_len() {
        panic!(
            "autodiff: the {what} buffer of `{label}` has length {} but `{label}` has length {}",
            buffer.len(),
            array.array_len()
        );
    }
    buffer
}

/// The length of a `copy_from_slice` (or `clone_from_slice`) that the generated sweeps write element by
/// element: `destination`, which must be `source`, so that a mismatch panics there as in the function.
///
/// # Panics
///
/// If the lengths differ, with the message of `<[T]>::copy_from_slice`.
#[inline]
#[track_caller]
pub fn copy_len(destination: usize, source: usize) -> usize {
    assert!(
        destination == source,
        "source slice length ({source}) does not match destination slice length ({destination})"
    );
    destination
}

/// The length of the sub-slice `w[start..end]` of a slice of `len` elements, read by a copy
/// (`out.copy_from_slice(&w[start..end])`) that the generated sweeps read element by element
/// (`w[start + k]`) instead of through the sub-slice: it panics where taking the sub-slice would, with the
/// same message, and allocates nothing (a `Vec` of `()` holds no memory).
///
/// # Panics
///
/// If `start > end` or `end > len`, as `&w[start..end]` does.
#[inline]
#[track_caller]
pub fn window_len(len: usize, start: usize, end: usize) -> usize {
    let units: Vec<()> = vec![(); len];
    units[start..end].len()
}

/// Copies a gradient computed elsewhere (a custom gradient's) into the caller's buffer for the array
/// parameter `label` (`f_grad_into`).
///
/// # Panics
///
/// If the lengths differ, with a message naming the parameter and both lengths.
#[inline]
pub fn copy_into<T: Copy>(label: &str, buffer: &mut [T], gradient: &[T]) {
    if buffer.len() != gradient.len() {
        panic!(
            "autodiff: the gradient buffer of `{label}` has length {} but `{label}` has length {}",
            buffer.len(),
            gradient.len()
        );
    }
    buffer.copy_from_slice(gradient);
}

/// The adjoint buffer of the output parameter `label` at the end of the function: a copy of its cotangent
/// `d`, or zeros where the caller gives none (`f_grad`).
///
/// # Panics
///
/// If the cotangent's length differs from the output's, naming the output and both lengths.
#[inline]
pub fn output_cotangent<A: ArrayLike + ?Sized>(label: &str, d: Option<&A>, output: &A) -> A::Zeros {
    match d {
        Some(d) => {
            check_output_length(label, d.array_len(), output.array_len());
            d.copy()
        }
        None => output.zeros(),
    }
}

/// Adds the cotangent `d` of the output parameter `label` (if any) to a buffer of the caller's.
///
/// # Panics
///
/// If the cotangent's length differs from the output's, naming the output and both lengths.
#[inline]
pub fn add_output_cotangent<T: Zero + Copy, A: ArrayLike + ?Sized + AsRef<[T]>>(
    label: &str,
    buffer: &mut [T],
    d: Option<&A>,
    output: &A,
) {
    if let Some(d) = d {
        check_output_length(label, d.array_len(), output.array_len());
        accumulate(buffer, d.as_ref());
    }
}

/// The tangent buffer of the output parameter `label` (`f_jvp`), checked against the output's length.
///
/// # Panics
///
/// If the lengths differ, naming the output and both lengths.
#[inline]
pub fn output_tangent<'b, T, A: ArrayLike + ?Sized>(
    label: &str,
    buffer: &'b mut [T],
    output: &A,
) -> &'b mut [T] {
    checked_buffer("tangent", label, buffer, output)
}

fn check_output_length(label: &str, d: usize, output: usize) {
    if d != output {
        panic!(
            "autodiff: the cotangent of `{label}` has length {d} but `{label}` has length {output}"
        );
    }
}

/// Sets every element to zero: `f_grad_into` clears the caller's buffers before accumulating into them.
#[inline]
pub fn clear<T: Zero + Copy>(buffer: &mut [T]) {
    buffer.fill(T::zero());
}

/// A zero of the type of `value`: for a derivative whose type the macro cannot write (a component of
/// the result of a call), while the value it belongs to is at hand.
#[inline]
pub fn zero_like<T: Zero>(_value: &T) -> T {
    T::zero()
}

/// A zero of the type of `value`, a tuple of floats (`(f64, f64)`): the tangent of a call's tuple value
/// where the callee has no derivatives (`autodiff-macros/src/maybe.rs`).
#[inline]
pub fn zero_tuple_like<T: ZeroTuple>(_value: &T) -> T {
    T::zero_tuple()
}

/// A tuple of [`Zero`]s, of up to six parts: see [`zero_tuple_like`].
pub trait ZeroTuple {
    /// Each part zero.
    fn zero_tuple() -> Self;
}

macro_rules! zero_tuple {
    ($($t:ident),+) => {
        impl<$($t: Zero),+> ZeroTuple for ($($t,)+) {
            #[inline]
            fn zero_tuple() -> Self {
                ($($t::zero(),)+)
            }
        }
    };
}

zero_tuple!(A);
zero_tuple!(A, B);
zero_tuple!(A, B, C);
zero_tuple!(A, B, C, D);
zero_tuple!(A, B, C, D, E);
zero_tuple!(A, B, C, D, E, F);

/// An output parameter of a caller passed on bare to a call (`total(out)`), as the callee's companion
/// `vjp_out` and `jvp_out` take it: the cotangent of the buffer after the call (`&[T]`, or `T` for a float
/// output), or in `jvp_out` the buffer of its tangent. The caller cannot see whether the callee writes the
/// buffer or only reads it; the callee's companion, which knows, passes it on ([`PassOn`]).
pub struct Passed<T>(pub T);

/// How a parameter that only reads what the caller passes (`v: &[T]`) passes on the cotangent of a buffer
/// passed to it on bare: the buffer keeps its values through the call, so the cotangent of its incoming
/// value is the cotangent after the call plus what the callee's reading adds. `()` is an argument passed
/// any other way, which adds nothing.
pub trait PassOn<C> {
    /// The cotangent of the incoming value: `cotangent` (the callee's reading) plus what is passed.
    fn pass_on(self, cotangent: C) -> C;
}

impl<C> PassOn<C> for () {
    #[inline(always)]
    fn pass_on(self, cotangent: C) -> C {
        cotangent
    }
}

impl<T: Copy + core::ops::Add<Output = T>> PassOn<T> for Passed<T> {
    #[inline(always)]
    fn pass_on(self, cotangent: T) -> T {
        cotangent + self.0
    }
}

impl<T: Zero + Copy> PassOn<Vec<T>> for Passed<&[T]> {
    #[inline]
    fn pass_on(self, mut cotangent: Vec<T>) -> Vec<T> {
        accumulate(&mut cotangent, self.0);
        cotangent
    }
}

impl<T: Zero + Copy, const N: usize> PassOn<[T; N]> for Passed<&[T]> {
    #[inline]
    fn pass_on(self, mut cotangent: [T; N]) -> [T; N] {
        accumulate(&mut cotangent, self.0);
        cotangent
    }
}

/// `*target = *target + value`: an adjoint accumulated into an array element (`+=` is not available for
/// every `Float`).
#[inline]
pub fn add_to<T: Copy + core::ops::Add<Output = T>>(target: &mut T, value: T) {
    *target = *target + value;
}

/// The inner product of two arrays: forward mode of a function whose gradient is given.
#[inline]
pub fn dot<T: Zero + Copy + core::ops::Mul<Output = T>>(a: &[T], b: &[T]) -> T {
    a.iter().zip(b).fold(T::zero(), |acc, (x, y)| acc + *x * *y)
}

/// The sum of the elements: the adjoint of a value repeated into an array (`vec![x; n]`).
#[inline]
pub fn sum<T: Zero + Copy>(values: &[T]) -> T {
    values.iter().fold(T::zero(), |acc, v| acc + *v)
}

/// `target[i] += source[i]`: the adjoint of a copy (`x.to_vec()`) flowing back to the original.
#[inline]
pub fn accumulate<T: Zero + Copy>(target: &mut [T], source: &[T]) {
    for (t, s) in target.iter_mut().zip(source) {
        *t = *t + *s;
    }
}

/// The adjoint buffer of a local `Vec` at least `len` long, the entries added zero: the reverse of
/// `v.pop()` (`Stmt::Truncate`), which gives back the slot the buffer, sized to the `Vec`'s final
/// length, may not have.
#[inline]
pub fn grow_to<T: Zero + Copy>(buffer: &mut Vec<T>, len: usize) {
    if buffer.len() < len {
        buffer.resize(len, T::zero());
    }
}

/// The buffer that a callee's reverse sweep adds an array argument's cotangent into (a call's
/// `vjp_into`): the caller's, or, when the caller wants no cotangent for that argument (`None`: it
/// passed inactive data), `scratch`, zero-filled to the argument's length `len`.
#[inline]
pub fn slot_or_scratch<'b, T: Zero + Copy>(
    slot: Option<&'b mut [T]>,
    scratch: &'b mut Scratch<T>,
    len: usize,
) -> &'b mut [T] {
    match slot {
        Some(buffer) => buffer,
        None if len <= SCRATCH_INLINE => {
            &mut scratch.inline.insert([T::zero(); SCRATCH_INLINE])[..len]
        }
        None => {
            scratch.heap.resize(len, T::zero());
            &mut scratch.heap
        }
    }
}

/// How many elements [`Scratch`] holds without allocating.
pub const SCRATCH_INLINE: usize = 64;

/// Where a call's `vjp_into` writes the cotangent of an argument its caller wants none of
/// ([`slot_or_scratch`]): on the stack up to [`SCRATCH_INLINE`] elements (a row of data lent to a callee in
/// a loop costs no allocation per call), on the heap beyond. Made empty; filled only when it is used.
pub struct Scratch<T> {
    inline: Option<[T; SCRATCH_INLINE]>,
    heap: Vec<T>,
}

impl<T> Scratch<T> {
    /// An unused scratch: no allocation, nothing written.
    #[inline(always)]
    pub const fn new() -> Self {
        Scratch {
            inline: None,
            heap: Vec::new(),
        }
    }
}

impl<T> Default for Scratch<T> {
    #[inline(always)]
    fn default() -> Self {
        Self::new()
    }
}

/// Adds a scalar argument's cotangent into the caller's slot of a call's `vjp_into`, if it has one.
#[inline]
pub fn add_into_slot<T: Copy + core::ops::Add<Output = T>>(slot: Option<&mut T>, value: T) {
    if let Some(target) = slot {
        *target = *target + value;
    }
}

/// Adds an array argument's cotangent into the caller's slot of a call's `vjp_into`, if it has one.
#[inline]
pub fn accumulate_into_slot<T: Zero + Copy>(slot: Option<&mut [T]>, source: &[T]) {
    if let Some(target) = slot {
        accumulate(target, source);
    }
}

/// A parameter taken by value that a generated item passes to the function more than once (`f_hessian`
/// calls `f_hvp` once per input, `f_jacobian` the sweep once per row): each call gets a copy
/// (`::autodiff::__private::Reusable::again(&p)`), so the parameter's type must be `Clone`, which the
/// message says at the parameter instead of rustc's bare `Clone` bound inside generated code.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is taken by value but is not `Clone`, and a generated item (`_hessian`, `_jacobian`) calls the function once per direction: derive `Clone` (or `Copy`) for `{Self}`, or take it by reference (`&self`, `p: &{Self}`)",
    label = "taken by value here"
)]
pub trait Reusable {
    /// A copy of `self` for one more call.
    fn again(&self) -> Self;
}

impl<T: Clone> Reusable for T {
    #[inline(always)]
    fn again(&self) -> Self {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_tuple_like_makes_each_part_zero() {
        let zero = zero_tuple_like(&(1.5f64, crate::Dual::new(2.0f64, 3.0), -4.0f32));
        assert_eq!(
            (zero.0, zero.1.re, zero.1.eps, zero.2),
            (0.0, 0.0, 0.0, 0.0)
        );
    }

    /// Pushes `n` values counted by an `Rc`, pops `popped` of them (checking each), and drops the tape
    /// with the rest: every value is dropped exactly once, across the inline slots and the heap.
    fn round_trip(n: usize, popped: usize, reserve: usize) {
        let counter = std::rc::Rc::new(());
        let mut tape = Tape::new();
        tape.reserve(reserve);
        for i in 0..n {
            tape.push((i, std::rc::Rc::clone(&counter)));
        }
        assert_eq!(tape.len(), n);
        assert_eq!(std::rc::Rc::strong_count(&counter), n + 1);
        let copy = tape.clone();
        assert_eq!(std::rc::Rc::strong_count(&counter), 2 * n + 1);
        drop(copy);
        for i in (n - popped..n).rev() {
            assert_eq!(tape.pop().0, i);
        }
        assert_eq!(tape.len(), n - popped);
        assert_eq!(std::rc::Rc::strong_count(&counter), n - popped + 1);
        drop(tape);
        assert_eq!(std::rc::Rc::strong_count(&counter), 1);
    }

    #[test]
    fn a_tape_returns_its_values_last_first_and_drops_each_once() {
        for n in [1, INLINE - 1, INLINE, INLINE + 1, 3 * INLINE] {
            for popped in [0, 1, n / 2, n] {
                for reserve in [0, 2, INLINE + 5] {
                    round_trip(n, popped, reserve);
                }
            }
        }
    }

    /// Pushes `n` counted values, takes `taken` of them through a reader (checking each), then pops
    /// `popped` more from the tape, pushes one, and drops the tape: the reader gives the tape's values
    /// in the tape's order, the tape has the rest back, and every value is dropped exactly once.
    fn read_back(n: usize, taken: usize, popped: usize, reserve: usize) {
        let counter = std::rc::Rc::new(());
        let mut tape = Tape::new();
        tape.reserve(reserve);
        for i in 0..n {
            tape.push((i, std::rc::Rc::clone(&counter)));
        }
        let mut reader = tape.reader();
        assert_eq!(reader.len(), n);
        for i in (n - taken..n).rev() {
            assert_eq!(reader.pop().0, i);
        }
        assert_eq!(reader.len(), n - taken);
        assert_eq!(format!("{reader:?}").matches("()").count(), n - taken);
        drop(reader);
        assert_eq!(tape.len(), n - taken);
        assert_eq!(std::rc::Rc::strong_count(&counter), n - taken + 1);
        for i in (n - taken - popped..n - taken).rev() {
            assert_eq!(tape.pop().0, i);
        }
        tape.push((n, std::rc::Rc::clone(&counter)));
        assert_eq!(tape.len(), n - taken - popped + 1);
        assert_eq!(tape.pop().0, n);
        drop(tape);
        assert_eq!(std::rc::Rc::strong_count(&counter), 1);
    }

    #[test]
    fn a_reader_takes_values_as_pops_and_gives_back_the_rest() {
        for n in [0, 1, INLINE - 1, INLINE, INLINE + 1, 3 * INLINE] {
            for taken in [0, 1, n / 2, n] {
                for popped in [0, 1, (n - taken.min(n)) / 2] {
                    if taken > n || taken + popped > n {
                        continue;
                    }
                    for reserve in [0, 2, INLINE + 5] {
                        read_back(n, taken, popped, reserve);
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "read more often than written")]
    fn a_reader_read_past_the_first_value_panics() {
        let mut tape = Tape::new();
        tape.push(1.0);
        let mut reader = tape.reader();
        assert_eq!(reader.pop(), 1.0);
        reader.pop();
    }

    #[test]
    fn a_tape_pushed_on_after_pops_keeps_its_order() {
        let mut tape = Tape::new();
        let mut model = Vec::new();
        // Grows past the inline slots, shrinks below them (on the heap), grows again.
        for round in 0..4 {
            for i in 0..(INLINE + 3) {
                tape.push(round * 100 + i);
                model.push(round * 100 + i);
            }
            for _ in 0..(INLINE / 2 + round) {
                assert_eq!(Some(tape.pop()), model.pop());
            }
        }
        while let Some(expected) = model.pop() {
            assert_eq!(tape.pop(), expected);
        }
        assert!(tape.is_empty());
        assert_eq!(format!("{tape:?}"), "[]");
    }

    #[test]
    fn slot_or_scratch_gives_the_slot_or_zeros_of_the_length() {
        let mut mine = [1.0, 2.0];
        let mut scratch = Scratch::new();
        assert_eq!(
            slot_or_scratch(Some(&mut mine[..]), &mut scratch, 2),
            &[1.0, 2.0]
        );
        for len in [0, 3, SCRATCH_INLINE, SCRATCH_INLINE + 1, 200] {
            let mut scratch = Scratch::new();
            let buffer = slot_or_scratch(None::<&mut [f64]>, &mut scratch, len);
            assert_eq!(buffer.len(), len);
            assert!(buffer.iter().all(|v| *v == 0.0));
            buffer.fill(5.0);
            assert_eq!(scratch.heap.is_empty(), len <= SCRATCH_INLINE);
        }
    }

    #[test]
    fn tape_is_last_in_first_out() {
        let mut tape = Tape::new();
        tape.push(1.0);
        tape.push(2.0);
        assert_eq!(tape.len(), 2);
        assert_eq!(tape.pop(), 2.0);
        assert_eq!(tape.pop(), 1.0);
        assert!(tape.is_empty());
    }

    #[test]
    fn a_tape_reserved_past_its_inline_values_keeps_their_order() {
        for (before, reserved) in [(0, INLINE + 1), (3, INLINE), (INLINE, 1), (2, 2)] {
            let mut tape = Tape::new();
            for i in 0..before {
                tape.push(i);
            }
            tape.reserve(reserved);
            for i in before..before + reserved + 5 {
                tape.push(i);
            }
            assert_eq!(tape.len(), before + reserved + 5);
            for i in (0..before + reserved + 5).rev() {
                assert_eq!(tape.pop(), i);
            }
            assert!(tape.is_empty());
            tape.push(7);
            assert_eq!(tape.pop(), 7);
        }
    }

    #[test]
    fn a_tape_spills_past_its_inline_values_and_back() {
        let mut tape = Tape::new();
        for round in 0..3 {
            // The first round fills the inline values too; later ones push on top of them.
            let first = if round == 0 { 0 } else { INLINE };
            for i in first..(INLINE * 3 + round) {
                tape.push(vec![i]);
            }
            for i in (INLINE..(INLINE * 3 + round)).rev() {
                assert_eq!(tape.pop(), vec![i]);
            }
            assert_eq!(tape.len(), INLINE);
        }
        for i in (0..INLINE).rev() {
            assert_eq!(tape.pop(), vec![i]);
        }
        assert!(tape.is_empty());
    }

    #[test]
    fn an_array_tape_gives_back_the_arrays_last_first() {
        let mut tape = ArrayTape::new();
        tape.push(&[1.0, 2.0]);
        tape.push(&[]);
        tape.push(&[3.0]);
        assert_eq!(tape.pop(), &vec![3.0]);
        assert_eq!(tape.pop(), &Vec::<f64>::new());
        tape.push(&[4.0, 5.0, 6.0]);
        assert_eq!(tape.pop(), &vec![4.0, 5.0, 6.0]);
        assert_eq!(tape.pop(), &vec![1.0, 2.0]);
    }

    #[test]
    fn an_array_tape_adds_back_scaled_gradients_last_first() {
        let mut tape = ArrayTape::new();
        tape.push_zeros(2).copy_from_slice(&[1.0, 2.0]);
        let second = tape.push_zeros(3);
        assert_eq!(second, &[0.0, 0.0, 0.0]);
        second[1] = 4.0;
        let mut target = vec![1.0; 3];
        tape.pop_add_scaled(&mut target, 0.5);
        assert_eq!(target, vec![1.0, 3.0, 1.0]);
        tape.pop_add_scaled(&mut target[..2], -1.0);
        assert_eq!(target, vec![0.0, 1.0, 1.0]);
        tape.push(&[7.0]);
        assert_eq!(tape.pop(), &vec![7.0]);
    }

    #[test]
    fn a_snapshot_tape_lends_the_arrays_last_first() {
        let mut tape = SnapshotTape::new();
        tape.push(&[1.0, 2.0]);
        tape.push(&[]);
        tape.push(&[3.0]);
        assert_eq!(tape.pop(), &[3.0]);
        assert_eq!(tape.pop(), &[] as &[f64]);
        tape.push(&[4.0, 5.0, 6.0]);
        assert_eq!(tape.pop(), &[4.0, 5.0, 6.0]);
        assert_eq!(tape.pop(), &[1.0, 2.0]);
        tape.push(&[7.0]);
        assert_eq!(tape.pop(), &[7.0]);
    }

    #[test]
    #[should_panic(expected = "tape was read more often")]
    fn popping_an_empty_snapshot_tape_is_a_bug_report() {
        let mut tape = SnapshotTape::<f64>::new();
        tape.push(&[1.0]);
        tape.pop();
        tape.pop();
    }

    #[test]
    #[should_panic(expected = "tape was read more often")]
    fn popping_an_empty_tape_is_a_bug_report() {
        Tape::<f64>::new().pop();
    }

    #[test]
    fn zeros_keep_the_shape() {
        let slice: &[f64] = &[1.0, 2.0];
        assert_eq!(zeros_like(&slice), vec![0.0, 0.0]);
        assert_eq!(zeros_like(&[1.0f32; 3]), [0.0f32; 3]);
        assert_eq!(zeros_like(&vec![1.0; 4]), vec![0.0; 4]);
    }

    #[test]
    #[should_panic(expected = "the tangent of `x` has length 2 but `x` has length 3")]
    fn tangent_length_is_checked() {
        tangent("x", vec![0.0; 2], &[1.0, 2.0, 3.0][..]);
    }

    #[test]
    #[should_panic(
        expected = "the cotangent `d_ret` has length 1 but the returned value has length 2"
    )]
    fn cotangent_length_is_checked() {
        cotangent("d_ret", vec![0.0; 1], &vec![1.0, 2.0]);
    }

    #[test]
    fn sums_accumulations_and_indexes() {
        assert_eq!(sum(&[1.0, 2.0, 3.0]), 6.0);
        let mut target = vec![1.0, 1.0];
        accumulate(&mut target, &[2.0, 3.0]);
        assert_eq!(target, vec![3.0, 4.0]);
        assert_eq!(nth((0..10).rev().step_by(3), 2), 3);
    }
}
