import CYAML

/// A YAML syntax error, with where libyaml found it.
struct YAMLSyntaxError: Error, Sendable, Equatable {
    /// libyaml's description of the problem.
    var message: String
    /// Where the problem is.
    var mark: SourceMark
}

/// Parses YAML text into a ``YAMLNode`` tree with libyaml's event API.
///
/// This is the only file that imports libyaml. Anchors and aliases are resolved (an alias is a copy
/// of the anchored node); merge keys (`<<`) are not supported and are read as an ordinary key.
/// JSON is read by the same parser: libyaml accepts JSON documents as YAML flow collections.
///
/// Input is bounded so that no rules file can exhaust the stack, memory or time: at most
/// ``maxBytes`` of text, ``maxDepth`` levels of nesting (checked as the events arrive, so the tree
/// is never built deeper, and everything downstream that walks it recursively is safe), and
/// ``maxNodes`` nodes counting every alias as the size of what it copies (so a "billion laughs"
/// document of aliases of aliases is refused after a million, not expanded). The builder keeps an
/// explicit stack rather than recursing, and finds duplicate keys with a set, so the cost is linear
/// in the size of the text.
enum YAMLParser {
    /// The largest rules text read, in bytes (8 MiB; real files are a few kilobytes).
    static let maxBytes = 8 << 20
    /// The deepest nesting of sequences and mappings (the rules format needs 5).
    static let maxDepth = 64
    /// The most nodes a document may expand to, aliases counted at their full size.
    static let maxNodes = 1_000_000

    /// Parses the first document of `text`. An empty document is an empty mapping.
    static func parse(_ text: String) throws(YAMLSyntaxError) -> YAMLNode {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw YAMLSyntaxError(
                message: "cannot initialise the YAML parser", mark: SourceMark(line: 1, column: 1))
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        guard bytes.count <= maxBytes else {
            throw YAMLSyntaxError(
                message: "the text is \(bytes.count) bytes, more than the \(maxBytes) read",
                mark: SourceMark(line: 1, column: 1))
        }
        return try bytes.withUnsafeBufferPointer { buffer throws(YAMLSyntaxError) -> YAMLNode in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder()
            while true {
                var event = yaml_event_t()
                guard yaml_parser_parse(&parser, &event) == 1 else {
                    let message = parser.problem.map { String(cString: $0) } ?? "malformed YAML"
                    let context = parser.context.map { String(cString: $0) }
                    let mark = SourceMark(
                        line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1)
                    throw YAMLSyntaxError(message: context.map { "\(message) \($0)" } ?? message, mark: mark)
                }
                defer { yaml_event_delete(&event) }
                if event.type == YAML_STREAM_END_EVENT || event.type == YAML_DOCUMENT_END_EVENT {
                    break
                }
                try builder.consume(event)
            }
            return builder.root ?? .mapping([], mark: SourceMark(line: 1, column: 1))
        }
    }

    /// Assembles nodes from the event stream.
    private struct TreeBuilder {
        private enum Open {
            case sequence([YAMLNode], SourceMark, anchor: String?)
            case mapping(
                [(key: String, keyMark: SourceMark, value: YAMLNode)], pendingKey: (String, SourceMark)?,
                SourceMark, anchor: String?, keys: Set<String>)
        }
        private var stack: [Open] = []
        /// Anchored nodes with how many nodes each holds, so an alias counts at its full size.
        private var anchors: [String: (node: YAMLNode, size: Int)] = [:]
        /// How many nodes each open collection holds so far, parallel to `stack`.
        private var sizes: [Int] = []
        private var nodes = 0
        var root: YAMLNode?

        private mutating func count(_ size: Int, at mark: SourceMark) throws(YAMLSyntaxError) {
            nodes += size
            if !sizes.isEmpty { sizes[sizes.count - 1] += size }
            if nodes > YAMLParser.maxNodes {
                throw YAMLSyntaxError(
                    message:
                        "the document expands to more than \(YAMLParser.maxNodes) nodes (aliases counted in full)",
                    mark: mark)
            }
        }

        private mutating func open(_ collection: Open, at mark: SourceMark) throws(YAMLSyntaxError) {
            guard stack.count < YAMLParser.maxDepth else {
                throw YAMLSyntaxError(
                    message: "nesting deeper than \(YAMLParser.maxDepth) levels", mark: mark)
            }
            stack.append(collection)
            sizes.append(1)
        }

        mutating func consume(_ event: yaml_event_t) throws(YAMLSyntaxError) {
            let mark = SourceMark(
                line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column) + 1)
            switch event.type {
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text =
                    scalar.value.map {
                        String(decoding: UnsafeBufferPointer(start: $0, count: scalar.length), as: UTF8.self)
                    } ?? ""
                let quoted =
                    scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE
                    || scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE
                    || scalar.style == YAML_LITERAL_SCALAR_STYLE || scalar.style == YAML_FOLDED_SCALAR_STYLE
                let node = YAMLNode.scalar(text, quoted: quoted, mark: mark)
                if let anchor = scalar.anchor { anchors[String(cString: anchor)] = (node, 1) }
                try count(1, at: mark)
                try add(node)
            case YAML_ALIAS_EVENT:
                let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
                guard let (node, size) = anchors[name] else {
                    throw YAMLSyntaxError(message: "unknown alias *\(name)", mark: mark)
                }
                try count(size, at: mark)
                try add(node)
            case YAML_SEQUENCE_START_EVENT:
                try count(1, at: mark)
                try open(
                    .sequence([], mark, anchor: event.data.sequence_start.anchor.map { String(cString: $0) }),
                    at: mark)
            case YAML_MAPPING_START_EVENT:
                try count(1, at: mark)
                try open(
                    .mapping(
                        [], pendingKey: nil, mark,
                        anchor: event.data.mapping_start.anchor.map { String(cString: $0) }, keys: []),
                    at: mark)
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let open = stack.popLast() else { return }
                let size = sizes.popLast() ?? 1
                let node: YAMLNode
                let anchor: String?
                switch open {
                case .sequence(let items, let start, let name):
                    node = .sequence(items, mark: start)
                    anchor = name
                case .mapping(let pairs, _, let start, let name, _):
                    node = .mapping(pairs, mark: start)
                    anchor = name
                }
                if let anchor { anchors[anchor] = (node, size) }
                if !sizes.isEmpty { sizes[sizes.count - 1] += size }
                try add(node)
            default:
                break
            }
        }

        private mutating func add(_ node: YAMLNode) throws(YAMLSyntaxError) {
            guard let top = stack.popLast() else {
                if root == nil { root = node }
                return
            }
            switch top {
            case .sequence(var items, let mark, let anchor):
                items.append(node)
                stack.append(.sequence(items, mark, anchor: anchor))
            case .mapping(var pairs, let pendingKey, let mark, let anchor, var keys):
                if let (key, keyMark) = pendingKey {
                    guard keys.insert(key).inserted else {
                        throw YAMLSyntaxError(message: "duplicate key \"\(key)\"", mark: keyMark)
                    }
                    pairs.append((key, keyMark, node))
                    stack.append(.mapping(pairs, pendingKey: nil, mark, anchor: anchor, keys: keys))
                } else {
                    guard case .scalar(let key, _, let keyMark) = node else {
                        throw YAMLSyntaxError(
                            message: "a mapping key must be a plain value, not \(node.kindName)",
                            mark: node.mark)
                    }
                    stack.append(
                        .mapping(pairs, pendingKey: (key, keyMark), mark, anchor: anchor, keys: keys))
                }
            }
        }
    }
}
