import CNATS
import Foundation

/// The tally the asynchronous publish callback writes into (kept alive by its ``JetStream``).
private final class PublishAnswers: Sendable {
    let tally = Locked(JetStream.PublishTally())
    /// The answers to the publishes of one round of ``JetStream/publishInOrder(_:)``, by message
    /// id: only ids listed here are recorded.
    let awaited = Locked(Awaited())

    struct Awaited {
        var ids: Set<String> = []
        var answers: [String: JetStream.Answer] = [:]
    }

    /// Counts one answer, and keeps it when its message's id is awaited.
    func record(_ message: OpaquePointer?, _ answer: JetStream.Answer) {
        tally.withLock { tally in
            switch answer {
            case .stored: tally.stored += 1
            case .failed(let text):
                tally.failures += 1
                tally.lastFailure = text
            }
        }
        var value: UnsafePointer<CChar>?
        guard let message, natsMsgHeader_Get(message, JetStream.messageIDHeader, &value) == NATS_OK,
            let value
        else { return }
        let id = String(cString: value)
        awaited.withLock { awaited in
            if awaited.ids.contains(id) { awaited.answers[id] = answer }
        }
    }
}

/// A connection to a NATS server (or cluster) with its JetStream context: the only place, with
/// ``PullConsumer``, ``JetStreamMessage`` and ``KeyValueBucket``, that calls the C client.
///
/// The connection reconnects by itself, forever, to any server of the cluster it learns of; calls
/// made while it is away fail with a timeout and are retried by their callers.
final class JetStream: @unchecked Sendable {
    /// `natsConnection *`.
    private let connection: OpaquePointer
    /// `jsCtx *`.
    let context: OpaquePointer
    /// What the stream answered to asynchronous publishes, counted on the library's thread.
    private let answers = PublishAnswers()

    /// Counts of the stream's answers to asynchronous publishes.
    struct PublishTally: Sendable, Equatable {
        var stored = 0
        var failures = 0
        var lastFailure = ""
    }

    /// The answers so far; compare two readings to see how a group of publishes went.
    var publishTally: PublishTally { answers.tally.withLock { $0 } }

    /// What a stream geofence uses must look like.
    struct StreamSpec: Sendable, Equatable {
        var name: String
        var subjects: [String]
        /// Copies kept by the cluster (1 on a single server, 3 across three).
        var replicas: Int
        /// How long JetStream remembers a `Nats-Msg-Id` to drop a repeat (0: the server's default, 2 min).
        var duplicateWindowSeconds: Double = 0
        /// How long messages are kept (0: until a size limit).
        var maxAgeSeconds: Double = 0
    }

    /// Connects to `servers` (URLs such as `nats://127.0.0.1:4222`), waiting up to
    /// `timeoutSeconds` for the first connection.
    init(servers: [String], name: String, timeoutSeconds: Double = 5) throws(NATSError) {
        var options: OpaquePointer?
        try check(natsOptions_Create(&options), "creating connection options")
        defer { natsOptions_Destroy(options) }
        var urls = servers.map { strdup($0) }
        defer { urls.forEach { free($0) } }
        let status = urls.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                natsOptions_SetServers(options, $0, Int32(buffer.count))
            }
        }
        try check(status, "setting the servers \(servers.joined(separator: ","))")
        try check(natsOptions_SetName(options, name), "naming the connection")
        try check(natsOptions_SetTimeout(options, Int64(timeoutSeconds * 1000)), "setting the timeout")
        // Keep trying for ever: a cluster loses a node and gets it back; geofence must outlast both.
        try check(natsOptions_SetMaxReconnect(options, -1), "setting reconnection")
        try check(natsOptions_SetReconnectWait(options, 250), "setting the reconnection wait")
        // Messages published while reconnecting are buffered up to this size, then fail fast.
        try check(natsOptions_SetReconnectBufSize(options, 8 * 1024 * 1024), "setting the reconnect buffer")
        var made: OpaquePointer?
        try check(natsConnection_Connect(&made, options), "connecting to \(servers.joined(separator: ","))")
        guard let made else { throw NATSError("connecting", message: "no connection") }
        connection = made
        var jetStream: OpaquePointer?
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = 5000
        jsOptions.PublishAsync.MaxPending = 4096
        // With that many unanswered, a publish waits for answers rather than failing after the
        // default 200 ms: a cluster electing a leader answers late, not never.
        jsOptions.PublishAsync.StallWait = 30_000
        jsOptions.PublishAsync.AckHandler = { _, message, ack, failure, closure in
            defer { natsMsg_Destroy(message) }
            guard let closure else { return }
            let answers = Unmanaged<PublishAnswers>.fromOpaque(closure).takeUnretainedValue()
            if ack != nil {
                answers.record(message, .stored)
            } else {
                let text =
                    failure.map {
                        $0.pointee.ErrText.map { String(cString: $0) }
                            ?? String(cString: natsStatus_GetText($0.pointee.Err))
                    } ?? "refused"
                answers.record(message, .failed(text))
            }
        }
        jsOptions.PublishAsync.AckHandlerClosure = Unmanaged.passUnretained(answers).toOpaque()
        let contextStatus = natsConnection_JetStream(&jetStream, connection, &jsOptions)
        guard contextStatus == NATS_OK, let jetStream else {
            natsConnection_Destroy(connection)
            throw NATSError("opening JetStream", status: contextStatus)
        }
        context = jetStream
    }

    /// Closes the connection (pending acknowledgements are flushed first).
    func close() {
        _ = natsConnection_FlushTimeout(connection, 2000)
        jsCtx_Destroy(context)
        natsConnection_Close(connection)
        natsConnection_Destroy(connection)
    }

    /// Sends what is buffered and waits for the server to have read it.
    func flush(timeoutSeconds: Double = 5) throws(NATSError) {
        try check(natsConnection_FlushTimeout(connection, Int64(timeoutSeconds * 1000)), "flushing")
    }

    /// The URL of the server the connection is on now, for logs.
    var connectedURL: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard natsConnection_GetConnectedUrl(connection, &buffer, buffer.count) == NATS_OK else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Streams

    /// Creates the stream, or brings an existing one's subjects, replicas and windows in line.
    func ensureStream(_ spec: StreamSpec) throws(NATSError) {
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        let name = strdup(spec.name)
        var subjects = spec.subjects.map { UnsafePointer(strdup($0)) }
        defer {
            free(name)
            subjects.forEach { free(UnsafeMutablePointer(mutating: $0)) }
        }
        config.Name = UnsafePointer(name)
        config.SubjectsLen = Int32(subjects.count)
        config.Storage = js_FileStorage
        config.Replicas = Int64(spec.replicas)
        config.Duplicates = Int64(spec.duplicateWindowSeconds * 1e9)
        config.MaxAge = Int64(spec.maxAgeSeconds * 1e9)
        var code = jsErrCode(rawValue: 0)
        let status = subjects.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                pointer in
                config.Subjects = UnsafeMutablePointer(pointer)
                var status = js_AddStream(nil, context, &config, nil, &code)
                if status != NATS_OK, code == JSStreamNameExistErr {
                    code = jsErrCode(rawValue: 0)
                    status = js_UpdateStream(nil, context, &config, nil, &code)
                }
                return status
            }
        }
        try check(status, "creating the stream \(spec.name)", code: code)
    }

    /// The last sequence of `stream` and how many messages it holds.
    func streamState(_ stream: String) throws(NATSError) -> (lastSequence: UInt64, messages: UInt64) {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        try check(
            js_GetStreamInfo(&info, context, stream, nil, &code), "reading the stream \(stream)", code: code)
        defer { jsStreamInfo_Destroy(info) }
        guard let info else { throw NATSError("reading the stream \(stream)", message: "no answer") }
        return (info.pointee.State.LastSeq, info.pointee.State.Msgs)
    }

    /// Who holds `stream` in the cluster, for a log line: its leader and each replica, current,
    /// behind by how many operations, or offline ("leader n1; n2 current; n3 offline").
    func clusterState(_ stream: String) throws(NATSError) -> String {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        try check(
            js_GetStreamInfo(&info, context, stream, nil, &code), "reading the stream \(stream)", code: code)
        defer { jsStreamInfo_Destroy(info) }
        guard let cluster = info?.pointee.Cluster?.pointee else { return "not clustered" }
        var parts = ["leader " + (cluster.Leader.map { String(cString: $0) } ?? "none")]
        if let replicas = cluster.Replicas {
            for index in 0..<Int(cluster.ReplicasLen) {
                guard let peer = replicas[index]?.pointee else { continue }
                let name = peer.Name.map { String(cString: $0) } ?? "?"
                let state =
                    peer.Offline ? "offline" : peer.Current ? "current" : "behind by \(peer.Lag)"
                parts.append("\(name) \(state)")
            }
        }
        return parts.joined(separator: "; ")
    }

    /// Asks the leader of `stream` to step down, so that its replicas elect another: the remedy
    /// for a stream whose leader stays elected but answers no publish (nats-server 2.9 can be left
    /// so after a node's loss, refusing every message with "no responders" until its leader is
    /// changed). Throws when the cluster refuses or does not answer.
    func stepDownLeader(_ stream: String) throws(NATSError) {
        var reply: OpaquePointer?
        let subject = "$JS.API.STREAM.LEADER.STEPDOWN.\(stream)"
        try check(
            natsConnection_Request(&reply, connection, subject, nil, 0, 5000),
            "asking the leader of \(stream) to step down")
        defer { natsMsg_Destroy(reply) }
        let length = Int(natsMsg_GetDataLength(reply))
        guard length > 0, let data = natsMsg_GetData(reply) else {
            throw NATSError("asking the leader of \(stream) to step down", message: "an empty answer")
        }
        let bytes = Data(bytes: data, count: length)
        struct Answer: Decodable {
            struct Failure: Decodable { var description: String? }
            var success: Bool?
            var error: Failure?
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: bytes) else {
            throw NATSError(
                "asking the leader of \(stream) to step down",
                message: "an answer that is not JSON: \(String(decoding: bytes, as: UTF8.self))")
        }
        guard answer.success == true else {
            throw NATSError(
                "asking the leader of \(stream) to step down",
                message: answer.error?.description ?? String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The subjects of `stream` matching `filter` (NATS wildcards) that hold a message.
    ///
    /// One stream-info request, answered by the stream's leader: unlike a watcher it creates no
    /// consumer, so it works while a node is lost (nats-server 2.9 places a new ephemeral
    /// consumer on a random replica of the stream, the lost node included, and then never
    /// answers its creation).
    func subjects(in stream: String, matching filter: String) throws(NATSError) -> [String] {
        var options = jsOptions()
        jsOptions_Init(&options)
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = filter.withCString { subjectsFilter in
            options.Stream.Info.SubjectsFilter = subjectsFilter
            return js_GetStreamInfo(&info, context, stream, &options, &code)
        }
        try check(status, "listing \(filter) in the stream \(stream)", code: code)
        defer { jsStreamInfo_Destroy(info) }
        guard let list = info?.pointee.State.Subjects?.pointee, list.Count > 0, let items = list.List else {
            return []
        }
        return (0..<Int(list.Count)).compactMap { index in
            items[index].Subject.map { String(cString: $0) }
        }
    }

    // MARK: Publishing

    /// Publishes `payload` on `subject` and waits for the stream to store it. With a
    /// `messageID` (the `Nats-Msg-Id` header) a repeat within the stream's duplicate window is
    /// dropped by JetStream; returns whether this one was such a repeat.
    @discardableResult
    func publish(subject: String, payload: [UInt8], messageID: String?) throws(NATSError) -> Bool {
        let message = try makeMessage(subject: subject, payload: payload)
        defer { natsMsg_Destroy(message) }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(rawValue: 0)
        let status: natsStatus =
            if let messageID {
                messageID.withCString { id in
                    options.MsgId = id
                    return js_PublishMsg(&ack, context, message, &options, &code)
                }
            } else {
                js_PublishMsg(&ack, context, message, &options, &code)
            }
        defer { jsPubAck_Destroy(ack) }
        try check(status, "publishing to \(subject)", code: code)
        return ack?.pointee.Duplicate ?? false
    }

    /// How long one asynchronous publish waits for the stream's answer before it counts as a
    /// failure (``PublishTally/failures``, text "Timeout").
    ///
    /// Without such a limit the library keeps a publish whose answer never comes (it was in
    /// flight to a node that died, or to a stream leader on it) among the unanswered ones for
    /// ever, and every later ``waitForPublishes(timeoutSeconds:)`` of this connection times out
    /// waiting for it: the engine could then never again see its output stored.
    static let publishAnswerSeconds = 10.0

    /// Publishes without waiting for the stream's answer (at most 4096 unanswered at once);
    /// ``waitForPublishes(timeoutSeconds:)`` waits for every answer, and ``publishTally`` counts
    /// how they went. An answer that does not come within ``publishAnswerSeconds`` counts as a
    /// failure.
    func publishAsync(subject: String, payload: [UInt8], messageID: String? = nil) throws(NATSError) {
        var message: OpaquePointer? = try makeMessage(subject: subject, payload: payload)
        // The id goes in the message's own header (what the option would set), so that the answer
        // callback can read which message it is answering.
        if let messageID {
            let status = natsMsgHeader_Set(message, Self.messageIDHeader, messageID)
            guard status == NATS_OK else {
                natsMsg_Destroy(message)
                throw NATSError("setting the id of a message for \(subject)", status: status)
            }
        }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = Int64(Self.publishAnswerSeconds * 1000)
        let status = js_PublishMsgAsync(context, &message, &options)
        // On success the library owns the message and has set the pointer to NULL.
        if message != nil { natsMsg_Destroy(message) }
        try check(status, "publishing to \(subject)")
    }

    /// The header JetStream drops a repeated message by, within the stream's duplicate window.
    static let messageIDHeader = "Nats-Msg-Id"

    /// How the stream answered one publish.
    enum Answer: Sendable, Equatable {
        case stored
        /// Refused, or not answered within ``publishAnswerSeconds``: the library's or the
        /// server's words.
        case failed(String)
    }

    /// A message for ``publishInOrder(_:)``.
    struct Outgoing: Sendable, Equatable {
        var subject: String
        var payload: [UInt8]
        /// The `Nats-Msg-Id`, unique among the messages published together.
        var id: String
        /// Messages of one group are stored in their order (a device's output, a device's fixes).
        var group: String
    }

    /// What ``publishInOrder(_:)`` got stored.
    struct OrderedOutcome: Sendable, Equatable {
        /// For each message, in the order given, whether the stream stored it (or had it already).
        var stored: [Bool]
        /// The first failure's words when any message is not stored.
        var failure: String?
    }

    /// Publishes `messages` so that each group's messages are stored in their order, with no gap:
    /// a group's next message is sent only once the stream has stored the one before, and a group
    /// stops at its first message not stored, the rest of it left for the caller to publish
    /// again. Different groups go out together, so a round costs one wait however many groups
    /// there are.
    ///
    /// Sending a whole batch at once and publishing again what failed would not keep the order: a
    /// cluster electing a stream leader refuses the first messages ("no responders") and stores
    /// later ones, and the refused ones would then be stored after them.
    func publishInOrder(_ messages: [Outgoing]) -> OrderedOutcome {
        var stored = [Bool](repeating: false, count: messages.count)
        var queues: [[Int]] = []
        var queueOfGroup: [String: Int] = [:]
        for (index, message) in messages.enumerated() {
            if let queue = queueOfGroup[message.group] {
                queues[queue].append(index)
            } else {
                queueOfGroup[message.group] = queues.count
                queues.append([index])
            }
        }
        var next = [Int](repeating: 0, count: queues.count)
        var live = Array(queues.indices)
        var failure: String?
        while !live.isEmpty {
            let round = live.map { queues[$0][next[$0]] }
            answers.awaited.withLock { awaited in
                awaited.ids = Set(round.map { messages[$0].id })
                awaited.answers = [:]
            }
            var sendFailure: String?
            do {
                for index in round {
                    let message = messages[index]
                    try publishAsync(
                        subject: message.subject, payload: message.payload, messageID: message.id)
                }
            } catch {
                sendFailure = "\(error)"
            }
            do {
                try waitForPublishes(timeoutSeconds: Self.publishAnswerSeconds + 5)
            } catch {
                sendFailure = sendFailure ?? "\(error)"
            }
            let answered = answers.awaited.withLock { awaited in
                defer { awaited = PublishAnswers.Awaited() }
                return awaited.answers
            }
            live = live.filter { queue in
                let index = queues[queue][next[queue]]
                switch answered[messages[index].id] {
                case .stored:
                    stored[index] = true
                    next[queue] += 1
                    return next[queue] < queues[queue].count
                case .failed(let text):
                    failure = failure ?? text
                case nil:
                    failure = failure ?? sendFailure ?? "no answer"
                }
                return false
            }
        }
        return OrderedOutcome(stored: stored, failure: failure)
    }

    /// Waits until every asynchronous publish has been answered (stored, refused, or given up
    /// after ``publishAnswerSeconds``); throws on a timeout.
    ///
    /// A timeout here should not happen, since every publish is answered or given up within
    /// ``publishAnswerSeconds``; should the library's timer be late (a stalled machine), the
    /// publishes still unanswered are taken back from the library and counted as failures, so
    /// that the next wait starts clean. Callers publish their whole group again after any
    /// failure (the message ids make repeats harmless).
    func waitForPublishes(timeoutSeconds: Double) throws(NATSError) {
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = Int64(timeoutSeconds * 1000)
        let status = js_PublishAsyncComplete(context, &options)
        guard status != NATS_OK else { return }
        let error = NATSError("waiting for published messages to be stored", status: status)
        var pending = natsMsgList()
        if js_PublishAsyncGetPendingList(&pending, context) == NATS_OK {
            let count = Int(pending.Count)
            natsMsgList_Destroy(&pending)
            answers.tally.withLock { tally in
                tally.failures += count
                tally.lastFailure = "\(count) publishes unanswered after \(Int(timeoutSeconds)) s"
            }
        }
        throw error
    }

    private func makeMessage(subject: String, payload: [UInt8]) throws(NATSError) -> OpaquePointer {
        var message: OpaquePointer?
        let status = payload.withUnsafeBufferPointer { bytes in
            bytes.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                    natsMsg_Create(&message, subject, nil, $0, Int32(bytes.count))
                }
            } ?? natsMsg_Create(&message, subject, nil, nil, 0)
        }
        try check(status, "making a message for \(subject)")
        guard let message else { throw NATSError("making a message", message: "no message") }
        return message
    }

    // MARK: Consumers

    /// What the server says of a consumer: the last stream sequence acknowledged with everything
    /// before it, and how many messages wait to be delivered or acknowledged.
    struct ConsumerState: Sendable, Equatable {
        var ackFloorStreamSequence: UInt64
        var pending: UInt64
        var ackPending: Int64
    }

    /// The state of the consumer `name` of `stream`, or `nil` if there is none.
    func consumerState(stream: String, name: String) throws(NATSError) -> ConsumerState? {
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = js_GetConsumerInfo(&info, context, stream, name, nil, &code)
        if status == NATS_NOT_FOUND || code == JSConsumerNotFoundErr { return nil }
        try check(status, "reading the consumer \(name)", code: code)
        defer { jsConsumerInfo_Destroy(info) }
        guard let info else { return nil }
        return ConsumerState(
            ackFloorStreamSequence: info.pointee.AckFloor.Stream, pending: info.pointee.NumPending,
            ackPending: info.pointee.NumAckPending)
    }

    /// Deletes the consumer `name` of `stream`; one that is not there is no error.
    func deleteConsumer(stream: String, name: String) throws(NATSError) {
        var code = jsErrCode(rawValue: 0)
        let status = js_DeleteConsumer(context, stream, name, nil, &code)
        if status == NATS_NOT_FOUND || code == JSConsumerNotFoundErr { return }
        try check(status, "deleting the consumer \(name)", code: code)
    }

    /// Creates the durable pull consumer `durable` on `stream` for `filter`, delivering from
    /// `startSequence` (an existing one of that name is replaced, so that the new owner of a
    /// partition decides where reading starts), and subscribes to it.
    func pullConsumer(
        stream: String, durable: String, filter: String, startSequence: UInt64, ackWaitSeconds: Double,
        maxAckPending: Int, replicas: Int
    ) throws(NATSError) -> PullConsumer {
        try deleteConsumer(stream: stream, name: durable)
        var config = jsConsumerConfig()
        jsConsumerConfig_Init(&config)
        var code = jsErrCode(rawValue: 0)
        let created = durable.withCString { durableName in
            filter.withCString { filterSubject in
                config.Durable = durableName
                config.FilterSubject = filterSubject
                config.AckPolicy = js_AckExplicit
                config.AckWait = Int64(ackWaitSeconds * 1e9)
                config.MaxAckPending = Int64(maxAckPending)
                config.Replicas = Int64(replicas)
                if startSequence > 1 {
                    config.DeliverPolicy = js_DeliverByStartSequence
                    config.OptStartSeq = startSequence
                } else {
                    config.DeliverPolicy = js_DeliverAll
                }
                return js_AddConsumer(nil, context, stream, &config, nil, &code)
            }
        }
        try check(created, "creating the consumer \(durable) on \(stream)", code: code)
        var subscription: OpaquePointer?
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        let status = stream.withCString { streamName in
            durable.withCString { consumerName in
                options.Stream = streamName
                options.Consumer = consumerName
                return js_PullSubscribe(&subscription, context, filter, durable, nil, &options, &code)
            }
        }
        try check(status, "subscribing to the consumer \(durable)", code: code)
        guard let subscription else {
            throw NATSError("subscribing to \(durable)", message: "no subscription")
        }
        return PullConsumer(subscription: subscription, name: durable)
    }

    // MARK: Key-value buckets

    /// Binds to the key-value bucket `bucket`, creating it (with `replicas` copies, one value per
    /// key kept) if it is not there.
    func keyValue(bucket: String, replicas: Int) throws(NATSError) -> KeyValueBucket {
        var store: OpaquePointer?
        if js_KeyValue(&store, context, bucket) == NATS_OK, let store {
            return KeyValueBucket(store: store, name: bucket)
        }
        var config = kvConfig()
        kvConfig_Init(&config)
        let status = bucket.withCString { name in
            config.Bucket = name
            config.History = 1
            config.Replicas = Int32(replicas)
            config.StorageType = js_FileStorage
            return js_CreateKeyValue(&store, context, &config)
        }
        // Another engine may have created it between the two calls.
        if status != NATS_OK, js_KeyValue(&store, context, bucket) == NATS_OK, let store {
            return KeyValueBucket(store: store, name: bucket)
        }
        try check(status, "creating the key-value bucket \(bucket)")
        guard let store else { throw NATSError("creating \(bucket)", message: "no bucket") }
        return KeyValueBucket(store: store, name: bucket)
    }
}
