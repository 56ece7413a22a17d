/// What an `expect audio …` line checks at the sink splay plays to.
public enum AudioCheck: Equatable, Sendable {
  /// The sink played the current track without a break from `from` seconds of it (nil: from where the last
  /// repositioning command said it would start) up to the audio heard last, starting within `tolerance` seconds.
  case playing(from: Double?, tolerance: Double)
  /// The sink plays nothing: the last 0.2 s of 0.3 s listened to are silent.
  case silent
}

/// How an audio check came out.
public enum AudioVerdict: Equatable, Sendable {
  /// The sink played what the check expects; the text says what was heard.
  case heard(String)
  /// The sink played something else; the text says what.
  case wrong(String)
  /// The check could not be judged here (a resampled or rewinding sink, the simulated output); the text says why.
  /// It is never a pass.
  case notJudged(String)
}
