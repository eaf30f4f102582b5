extension RandomAccessCollection {
    /// The index of the first element for which `belongsToSecondPart` is true, in a collection
    /// that the predicate partitions (every element for which it is false comes before every
    /// element for which it is true); `endIndex` when there is none. The one binary search of the
    /// SDK: sorted Days, logs in sequence order, feed lists in time order.
    ///
    /// - Complexity: O(log n) calls of the predicate. Inlinable, so each caller's module specializes
    ///   it for its own collection: a generic call through witness tables cost the Overview more
    ///   than its grid (issue 48).
    @inlinable package func partitioningIndex(where belongsToSecondPart: (Element) -> Bool) -> Index {
        var low = startIndex
        var count = distance(from: startIndex, to: endIndex)
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if belongsToSecondPart(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
