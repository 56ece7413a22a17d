import CSDBus
import PlayerCore

/// Reading and writing sd-bus messages (`sd_bus_message *`, an `OpaquePointer` in Swift) with the functions
/// sd-bus has that are not variadic, which Swift cannot call. On the bus thread only.
enum BusMessage {
  /// A D-Bus type code as sd-bus takes it (`char`).
  static func code(_ type: Unicode.Scalar) -> CChar { CChar(truncatingIfNeeded: type.value) }

  /// Appends `value` to `message` at its current position. Returns 0 or more, or a negative errno.
  static func append(_ value: MPRISValue, to message: OpaquePointer) -> Int32 {
    switch value {
    case .string(let text): return appendText(text, type: "s", to: message)
    case .objectPath(let path): return appendText(path, type: "o", to: message)
    case .boolean(let flag):
      // A D-Bus boolean is 32 bits wide.
      var raw: Int32 = flag ? 1 : 0
      return sd_bus_message_append_basic(message, code("b"), &raw)
    case .double(var number): return sd_bus_message_append_basic(message, code("d"), &number)
    case .int64(var number): return sd_bus_message_append_basic(message, code("x"), &number)
    case .int32(var number): return sd_bus_message_append_basic(message, code("i"), &number)
    case .strings(let list):
      return container(message, "a", "s") {
        for text in list {
          let r = appendText(text, type: "s", to: message)
          if r < 0 { return r }
        }
        return 0
      }
    case .dictionary(let entries):
      return container(message, "a", "{sv}") {
        for key in entries.keys.sorted() {
          let r = container(message, "e", "sv") {
            let r = appendText(key, type: "s", to: message)
            if r < 0 { return r }
            let entry = entries[key]!
            return container(message, "v", entry.signature) { append(entry, to: message) }
          }
          if r < 0 { return r }
        }
        return 0
      }
    }
  }

  /// Appends a string or object path. `busText` again, whatever made the value: C would cut a NUL short.
  private static func appendText(_ text: String, type: Unicode.Scalar, to message: OpaquePointer) -> Int32 {
    MPRISValue.busText(text).withCString { sd_bus_message_append_basic(message, code(type), $0) }
  }

  /// Opens a container of `type` holding `contents`, runs `body` inside it and closes it.
  private static func container(
    _ message: OpaquePointer, _ type: Unicode.Scalar, _ contents: String, _ body: () -> Int32
  ) -> Int32 {
    var r = sd_bus_message_open_container(message, code(type), contents)
    if r < 0 { return r }
    r = body()
    if r < 0 { return r }
    return sd_bus_message_close_container(message)
  }

  /// Reads a 64-bit integer argument; nil when the next argument is not one.
  static func readInt64(_ message: OpaquePointer) -> Int64? {
    var value: Int64 = 0
    return sd_bus_message_read_basic(message, code("x"), &value) > 0 ? value : nil
  }

  /// Reads a string (`s`) or object path (`o`) argument; nil when the next argument is not one.
  static func readText(_ message: OpaquePointer, type: Unicode.Scalar) -> String? {
    var text: UnsafePointer<CChar>?
    guard sd_bus_message_read_basic(message, code(type), &text) > 0, let text else { return nil }
    return String(cString: text)
  }

  /// Reads the value inside the variant at the current position, when its type is `signature` (`s`, `d` or
  /// `b`, what the writable properties take); nil otherwise.
  static func readVariant(_ message: OpaquePointer, signature: String) -> MPRISValue? {
    guard sd_bus_message_enter_container(message, code("v"), signature) > 0 else { return nil }
    defer { sd_bus_message_exit_container(message) }
    switch signature {
    case "s": return readText(message, type: "s").map(MPRISValue.string)
    case "d":
      var number = 0.0
      return sd_bus_message_read_basic(message, code("d"), &number) > 0 ? .double(number) : nil
    case "b":
      var raw: Int32 = 0
      return sd_bus_message_read_basic(message, code("b"), &raw) > 0 ? .boolean(raw != 0) : nil
    default: return nil
    }
  }

  /// Sends an empty method return for `call`.
  static func replySuccess(_ call: OpaquePointer) {
    var reply: OpaquePointer?
    guard sd_bus_message_new_method_return(call, &reply) >= 0, let reply else { return }
    sd_bus_send(nil, reply, nil)
    sd_bus_message_unref(reply)
  }

  /// Sends `error` as the reply to `call`.
  static func replyError(_ call: OpaquePointer, _ error: MPRISError) {
    var busError = sd_bus_error()
    _ = set(&busError, error)
    sd_bus_reply_method_error(call, &busError)
    sd_bus_error_free(&busError)
  }

  /// Fills `busError` for a handler to return; returns the negative errno sd-bus derives from the name.
  static func set(_ busError: UnsafeMutablePointer<sd_bus_error>?, _ error: MPRISError) -> Int32 {
    sd_bus_error_set(busError, error.name, MPRISValue.busText(error.message))
  }
}
