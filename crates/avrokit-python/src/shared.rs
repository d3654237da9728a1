//! A `Mutex` for state that Python objects share between threads.
//!
//! A reader or writer may be used from several Python threads, and drops the GIL while it
//! compresses or decompresses: another thread that wants it then waits for it without the GIL
//! (waiting with it would deadlock). A thread that re-enters an object it is already using (a
//! file object's `read` that iterates the reader it feeds) gets an error instead of a deadlock.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

pub struct Shared<T> {
    inner: Mutex<T>,
    /// A token of the thread holding `inner` (0: none).
    owner: AtomicUsize,
}

pub struct Guard<'a, T> {
    guard: MutexGuard<'a, T>,
    owner: &'a AtomicUsize,
}

thread_local! {
    static TOKEN: u8 = const { 0 };
}

fn thread_token() -> usize {
    TOKEN.with(|t| t as *const u8 as usize)
}

impl<T: Send> Shared<T> {
    pub fn new(value: T) -> Shared<T> {
        Shared {
            inner: Mutex::new(value),
            owner: AtomicUsize::new(0),
        }
    }

    /// Takes the state, waiting (without the GIL) while another thread has it.
    pub fn lock(&self, py: Python<'_>, what: &str) -> PyResult<Guard<'_, T>> {
        let me = thread_token();
        let guard = loop {
            match self.inner.try_lock() {
                Ok(g) => break g,
                Err(TryLockError::WouldBlock) => {
                    if self.owner.load(Ordering::Acquire) == me {
                        return Err(PyRuntimeError::new_err(format!(
                            "the {what} was re-entered while in use"
                        )));
                    }
                    py.detach(|| drop(self.inner.lock()));
                }
                Err(TryLockError::Poisoned(_)) => {
                    return Err(PyRuntimeError::new_err(format!(
                        "the {what} failed earlier and cannot be used"
                    )))
                }
            }
        };
        self.owner.store(me, Ordering::Release);
        Ok(Guard {
            guard,
            owner: &self.owner,
        })
    }
}

impl<T> Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

impl<T> DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        self.owner.store(0, Ordering::Release);
    }
}
