/// Where a future with a ``Future/Resolver`` was created, for the diagnostic sent when the resolver is
/// released while the future is still pending.
///
/// It is stored packed (14 bytes) rather than as a `StaticString` and a `UInt` (32 bytes) because every
/// resolver carries one, and a pending future's footprint is a budgeted figure. The text of a `#fileID`
/// literal lives in static storage for the life of the process, so keeping its address is safe.
@usableFromInline
struct CreationSite: Sendable {
  private let fileIDAddress: UInt
  private let lineNumber: UInt32
  private let fileIDCount: UInt16

  @usableFromInline
  init(fileID: StaticString, line: UInt) {
    if fileID.hasPointerRepresentation, fileID.utf8CodeUnitCount <= Int(UInt16.max) {
      fileIDAddress = UInt(bitPattern: fileID.utf8Start)
      fileIDCount = UInt16(truncatingIfNeeded: fileID.utf8CodeUnitCount)
    } else {
      fileIDAddress = 0
      fileIDCount = 0
    }
    lineNumber = UInt32(truncatingIfNeeded: line)
  }

  /// The `#fileID` of the creating call, such as `PlayerCore/PulseOutput.swift`.
  var fileID: String {
    guard let start = UnsafePointer<UInt8>(bitPattern: fileIDAddress) else { return "<unknown>" }
    return String(decoding: UnsafeBufferPointer(start: start, count: Int(fileIDCount)), as: UTF8.self)
  }

  /// The line of the creating call.
  var line: Int { Int(lineNumber) }
}
