/// The `m` smallest of `elements` by `less` (a strict weak order), in that order.
///
/// A max-heap keeps the `m` smallest seen, and an element enters only when it comes before the
/// greatest of them: on elements in no particular order few do once the heap is full (about
/// m · ln(n / m) of n), so selecting a page near the top of a long list is one pass over the
/// keys, not their sort. O(n + m log m · log(n / m)) expected, O(n log m) when every element
/// enters (elements in reverse order); O(m) memory.
@inlinable
public func smallest<S: Sequence>(_ m: Int, of elements: S, by less: (S.Element, S.Element) -> Bool) -> [S.Element] {
  guard m > 0 else { return [] }
  var heap: [S.Element] = []
  heap.reserveCapacity(m)
  for e in elements {
    if heap.count < m {
      // Sift up: the new element rises past every smaller parent.
      heap.append(e)
      var i = heap.count - 1
      while i > 0 {
        let parent = (i - 1) / 2
        guard less(heap[parent], heap[i]) else { break }
        heap.swapAt(parent, i)
        i = parent
      }
    } else if less(e, heap[0]) {
      // Sift down: the new root sinks below every greater child.
      heap[0] = e
      var i = 0
      while true {
        let (left, right) = (2 * i + 1, 2 * i + 2)
        var largest = i
        if left < heap.count && less(heap[largest], heap[left]) { largest = left }
        if right < heap.count && less(heap[largest], heap[right]) { largest = right }
        if largest == i { break }
        heap.swapAt(i, largest)
        i = largest
      }
    }
  }
  heap.sort(by: less)
  return heap
}
