/// The order a shuffled queue plays in: a permutation of the queue's indices, with each index's place in it,
/// so that moving by one and adding tracks cost the same on a queue of 200,000 as on one of ten.
struct ShuffleOrder: Equatable, Sendable {
  /// The queue's indices in the order they play.
  private(set) var order: [Int] = []
  /// `places[index]` is where `index` stands in `order`.
  private var places: [Int] = []

  /// How many indices the order holds: the queue's length it was drawn or extended for.
  var count: Int { order.count }

  /// A new order of `count` indices, `first` at its head (the current track plays first).
  static func drawn(count: Int, first: Int?, using random: inout SplitMix64) -> ShuffleOrder {
    var rest = Array(0..<count).filter { $0 != first }
    rest.shuffle(using: &random)
    var drawn = ShuffleOrder()
    drawn.order = (first.map { [$0] } ?? []) + rest
    drawn.places = Array(repeating: 0, count: count)
    for (place, index) in drawn.order.enumerated() { drawn.places[index] = place }
    return drawn
  }

  /// Where `index` stands in the order.
  func place(of index: Int) -> Int { places[index] }

  /// The index at `place` in the order.
  subscript(place: Int) -> Int { order[place] }

  /// Adds the indices from `count` to `newCount` (tracks appended to the queue), each at a random place after
  /// `current`'s: what played before it stays played, and the new tracks mix with those still to come.
  mutating func extend(to newCount: Int, after current: Int?, using random: inout SplitMix64) {
    let firstFree = current.map { places[$0] + 1 } ?? 0
    for index in order.count..<newCount {
      // One step of an inside-out Fisher-Yates over the places after `current`: every order of the tracks
      // still to come stays equally likely.
      let place = Int.random(in: firstFree...order.count, using: &random)
      if place == order.count {
        places.append(place)
        order.append(index)
      } else {
        let moved = order[place]
        order.append(moved)
        places[moved] = order.count - 1
        order[place] = index
        places.append(place)
      }
    }
  }
}
