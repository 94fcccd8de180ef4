import Synchronization

/// A value shared between threads of the harness (a worker's result, a stop flag, a count),
/// on `Synchronization.Mutex`: every access holds the lock.
final class LockedBox<T: Sendable>: Sendable {
  private let value: Mutex<T>
  init(_ v: T) { value = Mutex(v) }
  func set(_ v: T) { value.withLock { $0 = v } }
  func get() -> T { value.withLock { $0 } }
  func mutate(_ body: (inout T) -> Void) { value.withLock { body(&$0) } }
}
