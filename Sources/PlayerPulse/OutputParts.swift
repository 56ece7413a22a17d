/// The parts of one output that every part acting on its stream works with: the loop and its lock, the current
/// stream, the connection, the server's buffer, the operations in flight and where futures settle. Made once by
/// ``PulseOutput`` and handed to each of those parts.
struct OutputParts: @unchecked Sendable {
  /// The libpulse mainloop and its lock.
  let loop: ThreadedMainloop
  /// The stream while one exists, and which one is current.
  let current: CurrentStream
  /// The context, connecting with a deadline, and losing it.
  let connection: PulseConnection
  /// The stream's buffer at the server and the timing schedule.
  let buffer: ServerBuffer
  /// The libpulse operations in flight.
  let requests: PulseRequests
  /// Where futures settle and events go.
  let delivery: OutputDelivery
}
