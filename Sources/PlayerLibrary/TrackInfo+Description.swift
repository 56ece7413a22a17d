import PlayerCore

extension TrackInfo {
  /// `FLAC, 16-bit, 44.1 kHz, stereo`: the format as `info` and the live view show it.
  package var formatDescription: String {
    var parts = [format]
    if let bitDepth { parts.append("\(bitDepth)-bit") }
    parts.append(Self.rateText(sampleRate))
    parts.append(Self.channelsText(channels))
    return parts.joined(separator: ", ")
  }

  /// `album -6.20 dB`, `track +1.50 dB`, `untagged -3.00 dB`: the ReplayGain applied and its source; nil when
  /// ReplayGain is off.
  package var gainDescription: String? {
    guard let gain else { return nil }
    return (gain.source == .none ? "untagged" : gain.source.rawValue) + " " + Self.decibelsText(gain.decibels)
  }

  /// `-6.20 dB`, `+1.50 dB`: a gain with its sign and two decimals.
  package static func decibelsText(_ decibels: Double) -> String {
    let hundredths = Int((abs(decibels) * 100).rounded())
    let fraction = hundredths % 100
    let sign = decibels < 0 && hundredths > 0 ? "-" : "+"
    return "\(sign)\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) dB"
  }

  /// `44.1 kHz`, `48 kHz`, `8 kHz`.
  package static func rateText(_ rate: Int) -> String {
    let tenths = Int((Double(rate) / 100).rounded())
    return (tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)") + " kHz"
  }

  /// The usual names of the common layouts; a count for the rest.
  package static func channelsText(_ channels: Int) -> String {
    switch channels {
    case 1: "mono"
    case 2: "stereo"
    case 3: "2.1"
    case 6: "5.1"
    case 8: "7.1"
    default: "\(channels) channels"
    }
  }
}
