import Futures

extension PlayerController {
  /// Starts or resumes playback.
  @discardableResult public func play() -> Future<PlayerState, PlayerError> { send(.play) }
  /// Pauses playback.
  @discardableResult public func pause() -> Future<PlayerState, PlayerError> { send(.pause) }
  /// Pauses when playing, plays otherwise.
  @discardableResult public func toggle() -> Future<PlayerState, PlayerError> { send(.toggle) }
  /// Stops and rewinds the current track.
  @discardableResult public func stop() -> Future<PlayerState, PlayerError> { send(.stop) }
  /// Seeks to `seconds` from the start of the current track (clamped to its length).
  @discardableResult public func seek(to seconds: Double) -> Future<PlayerState, PlayerError> {
    send(.seek(.absolute(seconds)))
  }
  /// Seeks by `seconds` from the confirmed position.
  @discardableResult public func seek(by seconds: Double) -> Future<PlayerState, PlayerError> {
    send(.seek(.relative(seconds)))
  }
  /// Sets the volume in percent (clamped to 0–100).
  @discardableResult public func setVolume(_ percent: Int) -> Future<PlayerState, PlayerError> {
    send(.volume(.absolute(percent)))
  }
  /// Replaces the queue with `paths` and opens the first, stopped.
  @discardableResult public func load(_ paths: [String]) -> Future<PlayerState, PlayerError> { send(.load(paths)) }
  /// Opens the next track of the queue.
  @discardableResult public func next() -> Future<PlayerState, PlayerError> { send(.next) }
  /// Opens the previous track of the queue.
  @discardableResult public func previous() -> Future<PlayerState, PlayerError> { send(.previous) }
}
