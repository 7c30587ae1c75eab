import CNATS
import Foundation

/// A subscription to a durable pull consumer: the engine asks for messages when it is ready for
/// them, so a slow engine is never flooded and nothing is acknowledged before it is committed.
final class PullConsumer: @unchecked Sendable {
    /// `natsSubscription *`.
    private let subscription: OpaquePointer
    /// The consumer's durable name.
    let name: String

    init(subscription: OpaquePointer, name: String) {
        self.subscription = subscription
        self.name = name
    }

    deinit {
        natsSubscription_Destroy(subscription)
    }

    /// Up to `maximum` messages: those already waiting, or, if none are, the first to arrive
    /// within `waitSeconds` (with whatever else arrived by then). An empty array on a timeout.
    func fetch(maximum: Int, waitSeconds: Double) throws(NATSError) -> [JetStreamMessage] {
        var list = natsMsgList()
        var request = jsFetchRequest()
        jsFetchRequest_Init(&request)
        request.Batch = Int32(maximum)
        request.Expires = Int64(max(waitSeconds, 0.001) * 1e9)
        let status = natsSubscription_FetchRequest(&list, subscription, &request)
        defer { natsMsgList_Destroy(&list) }
        if status == NATS_TIMEOUT { return [] }
        try check(status, "fetching from the consumer \(name)")
        var messages: [JetStreamMessage] = []
        messages.reserveCapacity(Int(list.Count))
        for index in 0..<Int(list.Count) {
            guard let raw = list.Msgs[index] else { continue }
            // The message now belongs to the Swift object; the list must not free it.
            list.Msgs[index] = nil
            messages.append(JetStreamMessage(raw, from: self))
        }
        return messages
    }

    /// Stops receiving (the consumer stays on the server, with its position).
    func unsubscribe() {
        _ = natsSubscription_Unsubscribe(subscription)
    }
}

/// One message delivered by a consumer, with the stream's metadata, until it is acknowledged.
final class JetStreamMessage: @unchecked Sendable {
    /// `natsMsg *`.
    private let message: OpaquePointer
    /// The subscription it came through, kept alive as long as the message: acknowledging goes
    /// through the message's (unretained) pointer to its subscription, so a message acknowledged
    /// after its consumer was dropped (re-created after a lost delivery while its batch's output
    /// was still being published) would otherwise read freed memory.
    private let consumer: PullConsumer
    /// The subject it was stored under.
    let subject: String
    /// Its payload.
    let payload: [UInt8]
    /// Its sequence in the stream: the same for every engine and every delivery.
    let streamSequence: UInt64
    /// Its sequence among the consumer's deliveries (redeliveries count again).
    let consumerSequence: UInt64
    /// How many times it has been delivered (1 the first time).
    let deliveries: UInt64
    /// When the stream stored it: the arrival time that stays the same on every replay.
    let storedAt: Date

    init(_ message: OpaquePointer, from consumer: PullConsumer) {
        self.message = message
        self.consumer = consumer
        subject = String(cString: natsMsg_GetSubject(message))
        let length = Int(natsMsg_GetDataLength(message))
        if length > 0, let data = natsMsg_GetData(message) {
            payload = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
        } else {
            payload = []
        }
        var metadata: UnsafeMutablePointer<jsMsgMetaData>?
        if natsMsg_GetMetaData(&metadata, message) == NATS_OK, let metadata {
            streamSequence = metadata.pointee.Sequence.Stream
            consumerSequence = metadata.pointee.Sequence.Consumer
            deliveries = metadata.pointee.NumDelivered
            storedAt = Date(timeIntervalSince1970: Double(metadata.pointee.Timestamp) / 1e9)
            jsMsgMetaData_Destroy(metadata)
        } else {
            // Only a message that did not come from JetStream lacks them; it cannot be placed.
            streamSequence = 0
            consumerSequence = 0
            deliveries = 0
            storedAt = Date(timeIntervalSince1970: 0)
        }
    }

    deinit {
        natsMsg_Destroy(message)
    }

    /// Acknowledges it: the consumer will not deliver it again. Sent without waiting; an
    /// acknowledgement lost on the way means one redelivery, which the engine skips by sequence.
    func acknowledge() throws(NATSError) {
        try check(natsMsg_Ack(message, nil), "acknowledging stream message \(streamSequence)")
    }

    /// Asks for it to be delivered again (processing failed before the commit).
    func reject() {
        _ = natsMsg_Nak(message, nil)
    }
}
