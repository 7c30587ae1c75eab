/// Turns a `DecodingError` into one line naming the field, for messages users read.
enum JSONErrorText {
    /// A one-line description of a decoding error: the coding path and what was wrong.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
                .joined()
            return keys.isEmpty ? "" : "at \(keys.hasPrefix(".") ? String(keys.dropFirst()) : keys): "
        }
        func underlying(_ context: DecodingError.Context) -> String {
            if let cause = context.underlyingError { return " (\(cause))" }
            return ""
        }
        switch error {
        case .dataCorrupted(let context):
            return path(context) + context.debugDescription + underlying(context)
        case .keyNotFound(let key, let context):
            return path(context) + "missing field \"\(key.stringValue)\""
        case .typeMismatch(let type, let context):
            return path(context) + "expected \(type)"
        case .valueNotFound(let type, let context):
            return path(context) + "expected \(type), found null"
        @unknown default:
            return "\(error)"
        }
    }
}
