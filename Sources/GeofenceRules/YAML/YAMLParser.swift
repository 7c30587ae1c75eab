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
enum YAMLParser {
    /// Parses the first document of `text`. An empty document is an empty mapping.
    static func parse(_ text: String) throws(YAMLSyntaxError) -> YAMLNode {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw YAMLSyntaxError(
                message: "cannot initialise the YAML parser", mark: SourceMark(line: 1, column: 1))
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
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
                SourceMark, anchor: String?)
        }
        private var stack: [Open] = []
        private var anchors: [String: YAMLNode] = [:]
        var root: YAMLNode?

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
                if let anchor = scalar.anchor { anchors[String(cString: anchor)] = node }
                try add(node)
            case YAML_ALIAS_EVENT:
                let name = event.data.alias.anchor.map { String(cString: $0) } ?? ""
                guard let node = anchors[name] else {
                    throw YAMLSyntaxError(message: "unknown alias *\(name)", mark: mark)
                }
                try add(node)
            case YAML_SEQUENCE_START_EVENT:
                stack.append(
                    .sequence([], mark, anchor: event.data.sequence_start.anchor.map { String(cString: $0) }))
            case YAML_MAPPING_START_EVENT:
                stack.append(
                    .mapping(
                        [], pendingKey: nil, mark,
                        anchor: event.data.mapping_start.anchor.map { String(cString: $0) }))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                guard let open = stack.popLast() else { return }
                let node: YAMLNode
                let anchor: String?
                switch open {
                case .sequence(let items, let start, let name):
                    node = .sequence(items, mark: start)
                    anchor = name
                case .mapping(let pairs, _, let start, let name):
                    node = .mapping(pairs, mark: start)
                    anchor = name
                }
                if let anchor { anchors[anchor] = node }
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
            case .mapping(var pairs, let pendingKey, let mark, let anchor):
                if let (key, keyMark) = pendingKey {
                    if pairs.contains(where: { $0.key == key }) {
                        throw YAMLSyntaxError(message: "duplicate key \"\(key)\"", mark: keyMark)
                    }
                    pairs.append((key, keyMark, node))
                    stack.append(.mapping(pairs, pendingKey: nil, mark, anchor: anchor))
                } else {
                    guard case .scalar(let key, _, let keyMark) = node else {
                        throw YAMLSyntaxError(
                            message: "a mapping key must be a plain value, not \(node.kindName)",
                            mark: node.mark)
                    }
                    stack.append(.mapping(pairs, pendingKey: (key, keyMark), mark, anchor: anchor))
                }
            }
        }
    }
}
