//! Large futures built off the caller's stack frame. An `async fn`'s future is as large as its
//! largest state, and building one by value — to await it, or to `Box::pin` it — takes a stack
//! slot of that size in the *caller's* poll function. The compiler probes every page of a
//! frame as it enters the function, so those pages become resident even when the branch that
//! builds the future never runs (a `coyote mcp tools` run touched 368 KiB of the main stack
//! for the session daemon's and the chat's futures). [`boxed`] builds the future in a small
//! function of its own, never inlined, and moves it to the heap: callers hold a pointer, and
//! the slot exists only while that one future is built.

use std::future::Future;
use std::pin::Pin;

/// `make()`'s future on the heap, built in this function's frame rather than the caller's.
/// For the branches of a dispatcher, whose futures are large or rarely built (see the module
/// docs).
#[inline(never)]
pub fn boxed<F: Future>(make: impl FnOnce() -> F) -> Pin<Box<F>> {
    Box::pin(make())
}
