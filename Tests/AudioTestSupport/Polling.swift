/// Checks `condition` every `interval` until it holds or `seconds` pass, and says whether it held: for a test that
/// waits for something no event announces (a reading of the server, a fake decoder's counter, a file's content).
public func waitFor(
  within seconds: Double, every interval: Duration = .milliseconds(20), _ condition: () throws -> Bool
) async rethrows -> Bool {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while try !condition() {
    guard ContinuousClock.now < deadline else { return false }
    try? await Task.sleep(for: interval)
  }
  return true
}
