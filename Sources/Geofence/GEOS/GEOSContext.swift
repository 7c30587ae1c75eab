import CGEOS
import Foundation

/// An error GEOS reported, with its own message.
struct GEOSError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// Owns one GEOS context handle and turns GEOS's error handler into Swift errors.
///
/// GEOS contexts are not thread-safe: a context, and every geometry made with it, must be used by
/// one thread at a time. `GEOSContext` does not lock; its owner (``GEOSPolygon``) does.
final class GEOSContext {
    /// The C handle; valid for the lifetime of this object.
    let handle: GEOSContextHandle_t
    private let messages = MessageBox()

    /// Starts a context; `nil` when GEOS cannot (GEOS_init_r returns NULL when out of memory).
    init?() {
        // GEOS_init_r is not safe to call from several threads at once (libgeos/geos#1311).
        guard let handle = GEOSContext.initLock.withLock({ GEOS_init_r() }) else { return nil }
        self.handle = handle
        let box = Unmanaged.passUnretained(messages).toOpaque()
        GEOSContext_setErrorMessageHandler_r(
            handle,
            { message, userData in
                guard let message, let userData else { return }
                Unmanaged<MessageBox>.fromOpaque(userData).takeUnretainedValue().last = String(
                    cString: message)
            }, box)
    }

    deinit { GEOS_finish_r(handle) }

    private static let initLock = NSLock()

    /// The message for a context that could not be started.
    static let initFailure = "GEOS could not start (GEOS_init_r returned NULL)"

    /// The last error GEOS reported, as a Swift error, clearing it.
    func error(_ fallback: String) -> GEOSError {
        defer { messages.last = nil }
        return GEOSError(message: messages.last ?? fallback)
    }

    private final class MessageBox {
        var last: String?
    }
}

/// Owns one GEOS geometry and destroys it with its context (the context outlives it).
final class OwnedGeometry {
    let context: GEOSContext
    let pointer: OpaquePointer

    init(context: GEOSContext, pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit { GEOSGeom_destroy_r(context.handle, pointer) }
}
