/// Holds an object weakly: a test keeps a sample of futures this way and checks afterwards that none is alive.
package final class Weak {
  /// The object, until nothing else holds it.
  package weak var object: AnyObject?

  /// Holds `object` weakly.
  package init(_ object: AnyObject) { self.object = object }
}
