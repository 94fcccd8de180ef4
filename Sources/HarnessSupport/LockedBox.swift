import Synchronization

/// A value shared between threads of the harness (a worker's result, a stop flag, a count),
/// on `Synchronization.Mutex`: every access holds the lock.
package final class LockedBox<T: Sendable>: Sendable {
  private let value: Mutex<T>
  package init(_ v: T) { value = Mutex(v) }
  package func set(_ v: T) { value.withLock { $0 = v } }
  package func get() -> T { value.withLock { $0 } }
  package func mutate(_ body: (inout T) -> Void) { value.withLock { body(&$0) } }
}
